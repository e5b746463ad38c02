import { afterAll, beforeAll, expect, test } from 'bun:test'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { makeTestApp, type TestApp } from './setup/test-app'

/**
 * The docs page as a browser renders it (Debian chromium, headless, --dump-dom): v1 has its own
 * section, marked as the compatibility layer, with the v1 tag's description.
 */
const CHROMIUM = '/usr/bin/chromium'
let t: TestApp
let server: { port: number; stop(): void } | undefined
let profile: string

beforeAll(async () => {
  t = await makeTestApp()
  const s = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: (r) => t.app.handle(r) })
  server = { port: s.port!, stop: () => s.stop(true) }
  profile = mkdtempSync(join(tmpdir(), 'mv-chromium-'))
})
afterAll(async () => {
  server?.stop()
  await t.close()
  rmSync(profile, { recursive: true, force: true })
})

test.skipIf(!existsSync(CHROMIUM))('the rendered docs page has a "v1 (compatibility)" section with its description and every v1 operation', async () => {
  const proc = Bun.spawn(
    [CHROMIUM, '--headless', '--no-sandbox', '--disable-gpu', `--user-data-dir=${profile}`, '--virtual-time-budget=5000', '--dump-dom', `http://127.0.0.1:${server!.port}/api/v2/docs`],
    { stdout: 'pipe', stderr: 'ignore' },
  )
  const timer = setTimeout(() => proc.kill(), 30_000)
  const dom = await new Response(proc.stdout).text()
  clearTimeout(timer)
  await proc.exited
  expect(dom).toContain('<h2 id="v1">v1 compatibility</h2><div class="md"><p>The Mars Rover Photos API v1 shapes')
  expect(dom).toContain('Drop-in replacement for the archived NASA Mars Rover Photos API v1')
  for (const p of ['/api/v1/rovers/{name}/photos', '/api/v1/rovers/{name}/latest_photos', '/api/v1/manifests/{name}', '/api/v1/photos/{id}']) expect(dom).toContain(p)
}, 40_000)
