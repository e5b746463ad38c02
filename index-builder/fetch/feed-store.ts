import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs'
import { dirname, join } from 'node:path'
import type { FeedRover, FeedSpec } from './feed-spec'

/**
 * The saved feed pages: `<FEED_DIR>/<rover>/sol-NNNNN/page-NNN.json`, one file per (rover, sol,
 * page), each the page document as NASA sent it minus the records validation refused. The builder
 * reads them as it reads any saved feed page (`npm run build-index -- <FEED_DIR>`).
 *
 * A sol's pages are replaced as one: written and synced in `.staging/` (the builder skips dot
 * folders), then the sol folder is swapped in by rename. So a reader or a `kill -9` never sees a
 * half-written page, nor a mix of old and new pages of one sol (which could show an image twice
 * when new images shift the others to later pages). Leftovers of an interrupted swap are put
 * right by `recoverStaging` at the next start.
 */

const pad = (n: number, w: number) => String(n).padStart(w, '0')

export function solDir(feedDir: string, rover: FeedRover, sol: number): string {
  return join(feedDir, rover, `sol-${pad(sol, 5)}`)
}

const pageName = (page: number) => `page-${pad(page, 3)}.json`
const stagingDir = (feedDir: string, rover: FeedRover) => join(feedDir, '.staging', rover)

/** Writes `path` so that it is either absent, the old file, or the whole new one (temp + fsync + rename). */
export function writeFileAtomic(path: string, data: string): void {
  mkdirSync(dirname(path), { recursive: true })
  const tmp = `${path}.${process.pid}.tmp`
  writeSynced(tmp, data)
  renameSync(tmp, path)
  syncDir(dirname(path))
}

function writeSynced(path: string, data: string): void {
  const fd = openSync(path, 'w')
  try {
    writeSync(fd, data)
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}

function syncDir(dir: string): void {
  try {
    const fd = openSync(dir, 'r')
    try {
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
  } catch {
    /* some file systems cannot sync a folder; the rename itself is still atomic */
  }
}

/**
 * The saved page files of a sol, in page order ([] when the sol has none); undefined when the
 * numbering has a gap (a page file missing), so the caller treats the sol as not saved whole.
 */
export function savedPageFiles(feedDir: string, rover: FeedRover, sol: number): string[] | undefined {
  const dir = solDir(feedDir, rover, sol)
  if (!existsSync(dir)) return []
  const names = readdirSync(dir).filter((n) => /^page-\d{3}\.json$/.test(n)).sort()
  for (const [i, name] of names.entries()) if (name !== pageName(i)) return undefined
  return names.map((n) => join(dir, n))
}

/** One saved page document, or undefined when it is unreadable or not a page of `spec`'s feed. */
export function readSavedPage(path: string, spec: FeedSpec): { doc: Record<string, unknown>; text: string } | undefined {
  try {
    const text = readFileSync(path, 'utf8')
    const doc = JSON.parse(text)
    if (!doc || typeof doc !== 'object' || !Array.isArray(doc[spec.listKey])) return undefined
    return { doc, text }
  } catch {
    return undefined
  }
}

/**
 * A sol's new pages, written one by one into `.staging/` as they arrive (so a sol is never held
 * in memory), then swapped in whole by `commit`, or deleted whole by `discard`.
 */
export class StagedSol {
  readonly dir: string
  pages = 0
  bytes = 0

  constructor(
    private readonly feedDir: string,
    private readonly rover: FeedRover,
    private readonly sol: number,
  ) {
    this.dir = `${join(stagingDir(feedDir, rover), `sol-${pad(sol, 5)}`)}.new.${process.pid}`
  }

  /** Writes the next page (synced) and returns its text's digest. */
  add(text: string): string {
    // The first page waits in memory for a second: a one-page sol found empty or unchanged (most
    // sols of a mirror run) then costs no folder and no sync. One page is bounded by the client.
    if (this.pages === 0) this.first = text
    else {
      if (this.pages === 1) this.writeFirst()
      writeSynced(join(this.dir, pageName(this.pages)), text)
    }
    this.pages++
    this.bytes += Buffer.byteLength(text)
    return String(Bun.hash(text))
  }

  private first: string | undefined

  private writeFirst(): void {
    rmSync(this.dir, { recursive: true, force: true })
    mkdirSync(this.dir, { recursive: true })
    writeSynced(join(this.dir, pageName(0)), this.first!)
    this.first = undefined
  }

  /** Replaces the saved sol with the staged pages as one change (see the module note). */
  commit(): void {
    if (this.first !== undefined) this.writeFirst()
    syncDir(this.dir)
    const final = solDir(this.feedDir, this.rover, this.sol)
    const old = `${join(stagingDir(this.feedDir, this.rover), `sol-${pad(this.sol, 5)}`)}.old.${process.pid}`
    mkdirSync(dirname(final), { recursive: true })
    const hadOld = existsSync(final)
    if (hadOld) renameSync(final, old)
    renameSync(this.dir, final)
    syncDir(dirname(final))
    if (hadOld) rmSync(old, { recursive: true, force: true })
  }

  discard(): void {
    this.first = undefined
    if (this.pages > 1) rmSync(this.dir, { recursive: true, force: true })
  }
}

/**
 * After a crash: an `.old` folder whose sol folder is gone was mid-swap, so it goes back; every
 * other leftover (half-written `.new` folders, `.old` ones already replaced) is deleted.
 */
export function recoverStaging(feedDir: string, rover: FeedRover): number {
  const dir = stagingDir(feedDir, rover)
  if (!existsSync(dir)) return 0
  let restored = 0
  for (const name of readdirSync(dir)) {
    const m = /^(sol-\d{5})\.old\.\d+$/.exec(name)
    const final = m ? join(feedDir, rover, m[1]!) : undefined
    if (final && !existsSync(final)) {
      renameSync(join(dir, name), final)
      restored++
    } else rmSync(join(dir, name), { recursive: true, force: true })
  }
  return restored
}
