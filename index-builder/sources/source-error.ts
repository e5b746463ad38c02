/**
 * Bad input, named by file and record. A reader throws `SourceError` for a malformed file (record
 * "file") or record (its 0-based index in the file, or its id); `readSources` rethrows it unless
 * `skipBad` is set, in which case the record is counted and reported instead.
 */
export class SourceError extends Error {
  readonly file: string
  readonly record: number | string
  readonly reason: string
  constructor(file: string, record: number | string, reason: string) {
    super(record === 'file' ? `${file}: ${reason}` : `${file}: record ${record}: ${reason}`)
    this.name = 'SourceError'
    this.file = file
    this.record = record
    this.reason = reason
  }
}

/** A bad record inside a reader: the reader knows the file, the caller gives index and id. */
export class RecordError extends Error {
  constructor(readonly reason: string) {
    super(reason)
    this.name = 'RecordError'
  }
}

export interface Skipped {
  file: string
  record: number | string
  reason: string
}

/** What every reader gets: the file name for messages, and what to do with bad records. */
export interface ReadContext {
  file: string
  skipBad: boolean
  skipped: Skipped[]
  /** Photos dropped because their instrument maps to no catalogue camera, keyed "rover/INSTRUMENT". */
  unmapped: Map<string, number>
}

/** Counts a photo whose instrument maps to no catalogue camera (skipped, like the public service). */
export function countUnmapped(ctx: ReadContext, rover: string, instrument: string): undefined {
  const key = `${rover}/${instrument}`
  ctx.unmapped.set(key, (ctx.unmapped.get(key) ?? 0) + 1)
  return undefined
}

/** Label for a record in messages: "12 (id 102693)" style, as index or index+id. */
export function recordLabel(index: number, id: unknown): number | string {
  return id === undefined || id === null || id === '' ? index : `${index} (id ${String(id)})`
}

/**
 * Runs `fn` on each item; a RecordError becomes a SourceError naming file and record, which is thrown,
 * or with skipBad recorded in ctx.skipped. Returns the non-undefined results.
 */
export function eachRecord<T, R>(
  ctx: ReadContext,
  items: readonly T[],
  idOf: (item: T) => unknown,
  fn: (item: T, index: number) => R | undefined,
): R[] {
  const out: R[] = []
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!
    try {
      const r = fn(item, i)
      if (r !== undefined) out.push(r)
    } catch (e) {
      if (!(e instanceof RecordError)) throw e
      let id: unknown
      try {
        id = idOf(item)
      } catch {
        id = undefined
      }
      const err = new SourceError(ctx.file, recordLabel(i, id), e.reason)
      if (!ctx.skipBad) throw err
      ctx.skipped.push({ file: err.file, record: err.record, reason: err.reason })
    }
  }
  return out
}
