/**
 * The OpenAPI tools the contract tests run (redocly lint, openapi-typescript, tsc 5, ajv) live in
 * tools/openapi with their own package.json and lock: openapi-typescript needs TypeScript 5 and
 * the project type-checks with TypeScript 7 (decisions.md, Client generation). Installed there
 * on first use (a fresh clone), under a lock so parallel test files install once.
 */
import { existsSync, mkdirSync, rmSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { spawnSync } from 'node:child_process'

export const TOOLS = resolve(import.meta.dir, '../../tools/openapi')
const MARK = join(TOOLS, 'node_modules', '.bin', 'openapi-typescript')

export function toolBin(name: string): string {
  return join(TOOLS, 'node_modules', '.bin', name)
}

export async function ensureOpenApiTools(): Promise<void> {
  if (existsSync(MARK) && existsSync(join(TOOLS, 'node_modules', 'ajv'))) return
  const lock = join(TOOLS, '.install.lock')
  for (let i = 0; i < 600; i++) {
    try {
      mkdirSync(lock)
      break
    } catch {
      if (existsSync(MARK)) return
      await Bun.sleep(500)
    }
  }
  try {
    if (existsSync(MARK) && existsSync(join(TOOLS, 'node_modules', 'ajv'))) return
    const r = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--prefix', TOOLS], { cwd: TOOLS, encoding: 'utf8', timeout: 300_000 })
    if (r.status !== 0) throw new Error(`npm install in tools/openapi failed: ${r.stderr}`)
  } finally {
    rmSync(lock, { recursive: true, force: true })
  }
}
