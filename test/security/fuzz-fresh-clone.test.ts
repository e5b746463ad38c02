import { afterAll, expect, test } from 'bun:test'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'

/**
 * `npm run fuzz` builds what it needs: on a fresh clone there is no index (only the test preload
 * built data/index-test), and the script failed. A short run against an index folder that does
 * not exist yet must build it and pass.
 */
const ROOT = resolve(import.meta.dir, '../..')
const scratch = mkdtempSync(join(tmpdir(), 'mv-sec-fuzz-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

test('a short fuzz run with no index at its index path builds the index, then passes', async () => {
  const index = join(scratch, 'index')
  const env = { ...process.env }
  delete env.INDEX_DIR
  const proc = Bun.spawn([process.execPath, 'scripts/fuzz.ts', '--requests', '400', '--concurrency', '8', '--seed', '7', '--index', index], { cwd: ROOT, env, stdout: 'pipe', stderr: 'pipe' })
  const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()])
  const code = await proc.exited
  expect({ code, tail: out.slice(-600) + err.slice(-600) }).toEqual({ code: 0, tail: expect.stringContaining('fuzz: PASS') })
  expect(existsSync(join(index, 'current', 'manifest.json'))).toBe(true)
}, 120_000)
