/**
 * Clean-ups that must run once every test file is done: `bun test` exits without firing
 * process 'exit' listeners, so a PostgreSQL cluster or a temp folder left to one stays behind
 * (a running postgres and ~200 MB under /tmp per run). The preload runs these in a global afterAll.
 */
const pending: Array<() => unknown> = []

export function atEnd(fn: () => unknown): void {
  pending.push(fn)
}

/** Runs every registered clean-up once, last registered first; a failing one does not stop the rest. */
export async function runAtEnd(): Promise<void> {
  while (pending.length > 0) {
    try {
      await pending.pop()!()
    } catch {
      // best effort: what is left is only temporary
    }
  }
}
