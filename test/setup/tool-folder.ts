/**
 * Tools that need TypeScript 5 (the project type-checks with TypeScript 7: decisions.md, Client
 * generation and graph checks) live in their own folders under tools/, each with its own
 * package.json and lock. Installed there on first use (a fresh clone; CI installs them in
 * .ci/run), under a lock directory so test files started in parallel install once and the
 * others wait for the install to finish.
 */
import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { spawnSync } from 'node:child_process'

const STALE_MS = 10 * 60_000

export interface ToolFolder {
  /** Absolute path of the folder (tools/<name>). */
  dir: string
  /** Path of an installed executable in the folder's node_modules/.bin. */
  bin(name: string): string
  /** Installs the folder's packages unless every needed path is there already. */
  ensure(): Promise<void>
}

/** `needed`: paths under the folder's node_modules that a complete install has. */
export function toolFolder(name: string, needed: string[]): ToolFolder {
  const dir = resolve(import.meta.dir, '../../tools', name)
  const lock = join(dir, '.install.lock')
  const complete = () => !existsSync(lock) && needed.every((p) => existsSync(join(dir, 'node_modules', p)))
  async function ensure(): Promise<void> {
    for (let i = 0; i < 1200 && !complete(); i++) {
      try {
        mkdirSync(lock)
      } catch {
        // Another process installs: wait for its lock to go (or to go stale).
        try {
          if (Date.now() - statSync(lock).mtimeMs > STALE_MS) rmSync(lock, { recursive: true, force: true })
        } catch {
          /* gone meanwhile */
        }
        await Bun.sleep(500)
        continue
      }
      try {
        const r = spawnSync('npm', ['install', '--no-audit', '--no-fund'], { cwd: dir, encoding: 'utf8', timeout: 300_000 })
        if (r.status !== 0) throw new Error(`npm install in tools/${name} failed: ${r.stderr}`)
      } finally {
        rmSync(lock, { recursive: true, force: true })
      }
    }
    if (!complete()) throw new Error(`the tools in tools/${name} are not installed (npm install --prefix tools/${name})`)
  }
  return { dir, bin: (b) => join(dir, 'node_modules', '.bin', b), ensure }
}
