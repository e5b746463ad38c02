import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { spawnServer, type ServerProcess } from './setup/test-app'

const ROOT = join(import.meta.dir, '..')
const work = mkdtempSync(join(tmpdir(), 'mv-conv-'))
const servers: ServerProcess[] = []
afterAll(async () => {
  for (const s of servers) await s.stop('SIGKILL')
  rmSync(work, { recursive: true, force: true })
})

const env = (name: string) => ({ INDEX_DIR: process.env.INDEX_DIR!, KEYS_DB: join(work, `${name}.sqlite`) })

describe('the server process', () => {
  test('a second server on a busy port fails with a clear message instead of sharing the port', async () => {
    const first = await spawnServer(env('a'))
    servers.push(first)
    let message = ''
    try {
      servers.push(await spawnServer({ ...env('b'), PORT: String(first.port) }))
    } catch (e) {
      message = String(e)
    }
    expect(message).toContain(`cannot listen on port ${first.port}`)
    expect(message).toContain('another server')
    expect((await fetch(`${first.url}/health`)).status).toBe(200)
  }, 30_000)

  test('METRICS_PORT serves /metrics on its own loopback port', async () => {
    const s = await spawnServer({ ...env('m'), METRICS_PORT: '0' })
    servers.push(s)
    const started = await s.waitFor('server.started')
    expect(typeof started.metrics_port).toBe('number')
    await fetch(`${s.url}/health`)
    const text = await (await fetch(`http://127.0.0.1:${started.metrics_port}/metrics`)).text()
    expect(text).toMatch(/http_requests_total\{route="\/health",method="GET",status="200"\} 1/)
    expect((await fetch(`${s.url}/metrics`)).status).toBe(404) // no METRICS_TOKEN: not on the main port, an unknown path outside the API like any other
  }, 30_000)

  test('--help exits 0 with a usage text on every script, `npm run serve -- --help` included', () => {
    for (const script of ['app/server.ts', 'scripts/keys.ts', 'scripts/fuzz.ts', 'scripts/soak.ts', 'scripts/generate-client.ts', 'bench/run.ts', 'index-builder/cli.ts']) {
      const r = Bun.spawnSync([process.execPath, script, '--help'], { cwd: ROOT, env: { ...process.env, INDEX_DIR: join(work, 'none') } })
      expect(r.exitCode, script).toBe(0)
      expect(r.stdout.toString() + r.stderr.toString(), script).toMatch(/usage/i)
    }
    const npm = Bun.spawnSync(['npm', 'run', '--silent', 'serve', '--', '--help'], { cwd: ROOT, env: { ...process.env, INDEX_DIR: join(work, 'none') } })
    expect(npm.exitCode).toBe(0)
    expect(npm.stdout.toString()).toContain('usage: npm run serve')
  }, 60_000)
})

describe('the server process log', () => {
  test('lifecycle events and, with ACCESS_LOG on, one access line per request go to stdout as JSON', async () => {
    const proc = Bun.spawn([process.execPath, 'app/server.ts'], {
      cwd: ROOT,
      env: { ...process.env, ...env('log'), PORT: '0', LOG_LEVEL: 'info', WATCH_INDEX: '0', ACCESS_LOG: '1' },
      stdout: 'pipe',
      stderr: 'pipe',
    })
    const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader()
    let text = ''
    const until = async (re: RegExp) => {
      const deadline = Date.now() + 15_000
      while (!re.test(text) && Date.now() < deadline) {
        const { value, done } = await reader.read()
        if (done) break
        text += new TextDecoder().decode(value)
      }
      return re.exec(text)
    }
    try {
      const started = await until(/"event":"server\.started".*"port":(\d+)/)
      expect(started).not.toBeNull()
      const port = Number(/"port":(\d+)/.exec(started![0])![1])
      await fetch(`http://127.0.0.1:${port}/health`, { headers: { 'x-request-id': 'stdout-check' } })
      const line = await until(/\{[^\n]*"request_id":"stdout-check"[^\n]*\}/)
      expect(JSON.parse(line![0])).toMatchObject({ event: 'http.request', route: '/health', status: 200, method: 'GET' })
    } finally {
      proc.kill('SIGKILL')
      await proc.exited
    }
  }, 30_000)
})
