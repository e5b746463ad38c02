import { cpSync, realpathSync, symlinkSync } from 'node:fs'
import { basename, join } from 'node:path'

/**
 * A private copy of the test index (process.env.INDEX_DIR, set by the preload) laid out as the
 * builder publishes it: <work>/<name>/current -> <work>/<name>/<version>/. Tests that corrupt,
 * re-point or rebuild an index use it so the shared test index is never touched.
 */
export function copyIndex(work: string, name: string): { dir: string; version: string } {
  const dir = join(work, name)
  const versionDir = realpathSync(join(process.env.INDEX_DIR!, 'current'))
  const version = basename(versionDir)
  cpSync(versionDir, join(dir, version), { recursive: true })
  symlinkSync(version, join(dir, 'current'))
  return { dir, version }
}
