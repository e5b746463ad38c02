import { describe, expect, test } from 'bun:test'
import { makeDashboardApp } from './setup/dashboard-app'
import { SQLITE } from './setup/key-stores'
import { makeTestApp } from './setup/test-app'

/**
 * `npm test` prints test results only: the apps tests assemble keep their log and access lines
 * (TestApp.logs / accessLines) instead of writing them to stdout between the results. Spawned
 * servers' output is read by the test (test/setup/test-app.ts, spawnServer), never inherited.
 */
async function stdoutWrites(run: () => Promise<void>): Promise<string[]> {
  const written: string[] = []
  const original = process.stdout.write.bind(process.stdout)
  process.stdout.write = ((chunk: string | Uint8Array) => {
    written.push(typeof chunk === 'string' ? chunk : new TextDecoder().decode(chunk))
    return true
  }) as typeof process.stdout.write
  try {
    await run()
    // The access log writes its batch on the next turn of the event loop (src/http/line-writer.ts).
    await new Promise((r) => setImmediate(r))
    await Bun.sleep(20)
  } finally {
    process.stdout.write = original
  }
  return written
}

describe('apps assembled by tests', () => {
  test('makeTestApp: answers, errors and refusals write nothing to stdout (the access lines are kept for the test)', async () => {
    const t = await makeTestApp()
    try {
      const written = await stdoutWrites(async () => {
        expect((await t.request('/api/v2/photos?rovers=spirit&per_page=1')).status).toBe(200)
        expect((await t.request('/api/v2/photos?sol=x')).status).toBe(400)
        expect((await t.anonymous('/api/v2/photos')).status).toBe(401)
        expect((await t.anonymous('/health')).status).toBe(200)
      })
      expect(written).toEqual([])
      expect(t.accessLines.length).toBeGreaterThanOrEqual(3)
    } finally {
      await t.close()
    }
  }, 30_000)

  test('makeDashboardApp over HTTP: its pages and the API write nothing to stdout', async () => {
    const d = await makeDashboardApp(SQLITE)
    try {
      const origin = d.listen()
      const written = await stdoutWrites(async () => {
        expect((await fetch(`${origin}/dashboard`)).status).toBe(200)
        expect((await fetch(`${origin}/api/v2/photos`)).status).toBe(401)
      })
      expect(written).toEqual([])
    } finally {
      await d.close()
    }
  }, 30_000)
})
