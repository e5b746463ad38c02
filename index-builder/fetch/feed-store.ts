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

/** The saved page documents of a sol, in page order; undefined when a page file is missing or unreadable. */
export function readSavedPages(feedDir: string, spec: FeedSpec, sol: number): Array<Record<string, unknown>> | undefined {
  const dir = solDir(feedDir, spec.rover, sol)
  if (!existsSync(dir)) return []
  const names = readdirSync(dir).filter((n) => /^page-\d{3}\.json$/.test(n)).sort()
  const docs: Array<Record<string, unknown>> = []
  for (const [i, name] of names.entries()) {
    if (name !== pageName(i)) return undefined
    try {
      const doc = JSON.parse(readFileSync(join(dir, name), 'utf8'))
      if (!doc || typeof doc !== 'object' || !Array.isArray(doc[spec.listKey])) return undefined
      docs.push(doc)
    } catch {
      return undefined
    }
  }
  return docs
}

/** Replaces the sol's pages with `pages` as one change (see the module note). */
export function replaceSol(feedDir: string, rover: FeedRover, sol: number, pages: ReadonlyArray<Record<string, unknown>>): void {
  const final = solDir(feedDir, rover, sol)
  const base = join(stagingDir(feedDir, rover), `sol-${pad(sol, 5)}`)
  const fresh = `${base}.new.${process.pid}`
  const old = `${base}.old.${process.pid}`
  rmSync(fresh, { recursive: true, force: true })
  mkdirSync(fresh, { recursive: true })
  for (const [i, doc] of pages.entries()) writeSynced(join(fresh, pageName(i)), JSON.stringify(doc))
  syncDir(fresh)
  mkdirSync(dirname(final), { recursive: true })
  const hadOld = existsSync(final)
  if (hadOld) renameSync(final, old)
  renameSync(fresh, final)
  syncDir(dirname(final))
  if (hadOld) rmSync(old, { recursive: true, force: true })
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
