import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, renameSync, rmSync, statSync, symlinkSync, utimesSync } from 'node:fs'
import { join } from 'node:path'
import { fsyncDir } from './write-arrow-file'

/**
 * Atomic publication of a built index (schema.ts: `<out>/current` -> `<out>/<version>/`).
 *
 *  1. The builder writes into a staging folder inside `out` (same file system, so rename is atomic).
 *  2. publish() renames the staging folder to `<out>/<version>` (or drops it when that version
 *     already exists: same content), then points `current` at it by creating a temporary symlink
 *     and rename(2)-ing it over `current`: readers see the old or the new target, never neither.
 *  3. Older versions beyond `keep` are deleted (never the current one).
 * A build that fails or is killed before step 2 leaves `current` and its files untouched.
 */
export const CURRENT = 'current'
const STAGING_PREFIX = '.staging-'

export function stagingDir(out: string): string {
  mkdirSync(out, { recursive: true })
  removeAbandonedStaging(out)
  const dir = join(out, `${STAGING_PREFIX}${process.pid}-${Date.now().toString(36)}`)
  mkdirSync(dir)
  return dir
}

export interface Published {
  dir: string
  /** The version folder already existed with the same content; only `current` moved. */
  reused: boolean
  removed: string[]
}

export function publish(out: string, staging: string, version: string, keep: number): Published {
  const dir = join(out, version)
  let reused = false
  if (existsSync(dir)) {
    upgradeManifest(dir, staging)
    rmSync(staging, { recursive: true, force: true })
    reused = true
  } else {
    fsyncDir(staging)
    try {
      renameSync(staging, dir)
    } catch (e) {
      // A concurrent build published the same version first: same content, keep theirs.
      if (!existsSync(dir)) throw e
      rmSync(staging, { recursive: true, force: true })
      reused = true
    }
  }
  const now = new Date()
  utimesSync(dir, now, now) // the most recently published version is the newest for pruning
  const link = join(out, `.${CURRENT}-${process.pid}-${Date.now().toString(36)}`)
  symlinkSync(version, link) // relative target: the index folder can be moved as a whole
  renameSync(link, join(out, CURRENT))
  fsyncDir(out)
  return { dir, reused, removed: prune(out, version, keep) }
}

/** The version `current` points at, if any. */
export function currentVersion(out: string): string | undefined {
  try {
    return lstatSync(join(out, CURRENT)).isSymbolicLink() ? readlinkSync(join(out, CURRENT)).replace(/\/+$/, '') : undefined
  } catch {
    return undefined
  }
}

/** Deletes version folders beyond the `keep` most recently published (never `current`). */
function prune(out: string, current: string, keep: number): string[] {
  const versions = readdirSync(out)
    .filter((name) => /^[0-9a-f]{16}$/.test(name) && statSync(join(out, name)).isDirectory())
    .map((name) => ({ name, mtime: statSync(join(out, name)).mtimeMs }))
    .sort((a, b) => b.mtime - a.mtime || (a.name === current ? -1 : 1))
  const removed: string[] = []
  let kept = 0
  for (const v of versions) {
    if (v.name === current || kept < Math.max(1, keep) - 1) {
      if (v.name !== current) kept++
      continue
    }
    rmSync(join(out, v.name), { recursive: true, force: true })
    removed.push(v.name)
  }
  return removed
}

/** Staging folders left by builds that were killed (their process is gone). */
function removeAbandonedStaging(out: string): void {
  for (const name of readdirSync(out)) {
    const m = /^\.(?:staging|current)-(\d+)-/.exec(name)
    if (!m) continue
    const pid = Number(m[1])
    let alive = pid === process.pid
    if (!alive) {
      try {
        process.kill(pid, 0)
        alive = true
      } catch (e) {
        alive = (e as NodeJS.ErrnoException).code === 'EPERM'
      }
    }
    if (!alive) rmSync(join(out, name), { recursive: true, force: true })
  }
}

/**
 * Same version = same data files (the version hashes their SHA-256). An index published by an
 * older builder may lack what the manifest now records about those files (the per-file XXH3 the
 * server verifies at load): give the existing folder the new manifest, by rename, so a reader
 * sees the old or the new file, never a partial one. Nothing else in the folder changes.
 */
function upgradeManifest(dir: string, staging: string): void {
  const have = join(dir, 'manifest.json')
  const want = join(staging, 'manifest.json')
  try {
    const a = JSON.parse(readFileSync(have, 'utf8')) as { files?: Record<string, { xxh3?: string }> }
    const b = JSON.parse(readFileSync(want, 'utf8')) as { files?: Record<string, { xxh3?: string }> }
    const lacks = Object.entries(b.files ?? {}).some(([name, f]) => f.xxh3 !== undefined && a.files?.[name]?.xxh3 !== f.xxh3)
    if (lacks) renameSync(want, have)
  } catch {
    /* unreadable manifests: leave the published folder as it is (the server refuses it if it is damaged) */
  }
}
