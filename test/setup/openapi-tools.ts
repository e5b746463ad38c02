/**
 * The OpenAPI tools the contract tests run (redocly lint, openapi-typescript, tsc 5, ajv) live in
 * tools/openapi with their own package.json and lock: openapi-typescript needs TypeScript 5 and
 * the project type-checks with TypeScript 7 (decisions.md, Client generation). Installed there
 * on first use (a fresh clone; CI installs them in .ci/run), under a lock directory so test files
 * started in parallel install once and the others wait for the install to finish.
 */
import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { spawnSync } from 'node:child_process'

export const TOOLS = resolve(import.meta.dir, '../../tools/openapi')
const NEEDED = ['.bin/openapi-typescript', '.bin/redocly', '.bin/tsc', 'ajv/dist/2020.js', 'ajv-formats/package.json', 'openapi-fetch/package.json']
const LOCK = join(TOOLS, '.install.lock')
const STALE_MS = 10 * 60_000

export function toolBin(name: string): string {
  return join(TOOLS, 'node_modules', '.bin', name)
}

const complete = () => !existsSync(LOCK) && NEEDED.every((p) => existsSync(join(TOOLS, 'node_modules', p)))

export async function ensureOpenApiTools(): Promise<void> {
  for (let i = 0; i < 1200 && !complete(); i++) {
    try {
      mkdirSync(LOCK)
    } catch {
      // Another process installs: wait for its lock to go (or to go stale).
      try {
        if (Date.now() - statSync(LOCK).mtimeMs > STALE_MS) rmSync(LOCK, { recursive: true, force: true })
      } catch {
        /* gone meanwhile */
      }
      await Bun.sleep(500)
      continue
    }
    try {
      const r = spawnSync('npm', ['install', '--no-audit', '--no-fund'], { cwd: TOOLS, encoding: 'utf8', timeout: 300_000 })
      if (r.status !== 0) throw new Error(`npm install in tools/openapi failed: ${r.stderr}`)
    } finally {
      rmSync(LOCK, { recursive: true, force: true })
    }
  }
  if (!complete()) throw new Error('the OpenAPI tools in tools/openapi are not installed (npm install --prefix tools/openapi)')
}
