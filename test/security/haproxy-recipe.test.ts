import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { haproxyConfig } from '../../deploy/haproxy-config'
import { startRawServer, type RawServer } from './support'

/**
 * The shipped HAProxy recipe (deploy/haproxy-config.ts) run as test/cluster.test.ts runs it, by
 * the real haproxy, in front of a real instance with TRUST_PROXY on: what a client sends as a
 * forwarded header changes nothing, and a client that sends its head slowly, or opens many
 * connections, cannot hold them.
 */
setDefaultTimeout(60_000)
const haproxyBin = Bun.which('haproxy') ?? Bun.which('haproxy', { PATH: '/usr/sbin:/usr/local/sbin' })
if (!haproxyBin) console.warn('SKIPPED: haproxy is not installed; the recipe test does not run.')

const PER_SOURCE = 12
let work: string
let s: RawServer
let lb: { port: number; proc: ReturnType<typeof Bun.spawn> }

async function freePort(): Promise<number> {
  const probe = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
  const port = probe.port
  probe.stop(true)
  return port
}

/** A connection to the load balancer that writes what it is told and records when it was closed. */
async function openConnection(port: number) {
  let closedAt: number | undefined
  let received = ''
  // A connection refused at accept may already fail here (reset during connect).
  const sock = await Bun.connect({
    hostname: '127.0.0.1',
    port,
    socket: {
      data(_s, d) {
        received += Buffer.from(d).toString('latin1')
      },
      close() {
        closedAt ??= performance.now()
      },
      error() {
        closedAt ??= performance.now()
      },
    },
  }).catch(() => {
    closedAt = performance.now()
    return undefined
  })
  return {
    write: (text: string) => sock?.write(text),
    get closedAt() {
      return closedAt
    },
    get received() {
      return received
    },
    end: () => sock?.end(),
  }
}

describe.skipIf(!haproxyBin)('the HAProxy recipe', () => {
  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'mv-haproxy-'))
    s = await startRawServer({ TRUST_PROXY: '1' })
    const port = await freePort()
    const cfg = join(work, 'haproxy.cfg')
    writeFileSync(cfg, haproxyConfig({ bind: `127.0.0.1:${port}`, servers: [`127.0.0.1:${s.server.port}`], checkIntervalMs: 200, connectionsPerSource: PER_SOURCE }))
    lb = { port, proc: Bun.spawn([haproxyBin!, '-f', cfg, '-db'], { stdout: 'ignore', stderr: 'ignore' }) }
    const until = Date.now() + 15_000
    while (Date.now() < until) {
      const ok = await fetch(`http://127.0.0.1:${port}/health`).then((r) => r.status === 200, () => false)
      if (ok) break
      await Bun.sleep(100)
    }
  })
  afterAll(async () => {
    lb?.proc.kill('SIGKILL')
    await s?.close()
    rmSync(work, { recursive: true, force: true })
  })

  test('client-sent X-Forwarded-Proto/-Host/-For change nothing: cookies not Secure, links at the Host, the client counted under its own address', async () => {
    const forged = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'evil.example', 'x-forwarded-for': '203.0.113.66' }
    const page = await fetch(`http://127.0.0.1:${lb.port}/dashboard`, { headers: forged })
    expect(page.status).toBe(200)
    const cookie = page.headers.getSetCookie()[0]!
    expect(cookie).toStartWith('mv_form=')
    expect(cookie).not.toContain('Secure')
    const api = await fetch(`http://127.0.0.1:${lb.port}/api/v2/photos?per_page=1`, { headers: { ...forged, 'x-api-key': s.key } })
    expect(api.status).toBe(200)
    const body = (await api.json()) as { links: { next?: string; self?: string } }
    const next = body.links.next ?? body.links.self!
    expect(new URL(next).origin).toBe(`http://127.0.0.1:${lb.port}`)
    // The throttle of unknown keys counts per client address: with a forged X-Forwarded-For per
    // request, every attempt still lands on 127.0.0.1 (the proxy wrote the only entry).
    const statuses: number[] = []
    for (let i = 0; i < 35; i++) {
      const r = await fetch(`http://127.0.0.1:${lb.port}/api/v2/rovers`, { headers: { 'x-api-key': 'mv_live_' + '0'.repeat(40), 'x-forwarded-for': `198.51.100.${i}` } })
      statuses.push(r.status)
      await r.arrayBuffer()
    }
    expect(statuses).toContain(429)
  })

  test('a client sending one header line every 2 s is cut off by timeout http-request (10 s), not kept for timeout client', async () => {
    const c = await openConnection(lb.port)
    const started = performance.now()
    c.write('GET /health HTTP/1.1\r\nHost: mars-api.example\r\n')
    for (let i = 0; i < 9 && c.closedAt === undefined; i++) {
      await Bun.sleep(2_000)
      if (c.closedAt === undefined) c.write(`X-Slow-${i}: ${i}\r\n`)
    }
    while (c.closedAt === undefined && performance.now() - started < 20_000) await Bun.sleep(100)
    expect(c.closedAt).toBeDefined()
    expect(c.closedAt! - started).toBeLessThan(13_000)
    expect(c.received).toStartWith('HTTP/1.1 408')
    // Others are still served.
    expect((await fetch(`http://127.0.0.1:${lb.port}/health`)).status).toBe(200)
  }, 30_000)

  test(`one source address holds at most ${PER_SOURCE} connections: those past it are closed at accept, and it is served again once they close`, async () => {
    const held = []
    for (let i = 0; i < PER_SOURCE + 5; i++) {
      const c = await openConnection(lb.port)
      c.write('GET /health HTTP/1.1\r\nHost: mars-api.example\r\n') // an unfinished head: the connection stays open
      held.push(c)
    }
    await Bun.sleep(500)
    const open = held.filter((c) => c.closedAt === undefined)
    // This process's other connections (fetch's keep-alive pool) count too: at most PER_SOURCE, at least a few.
    expect(open.length).toBeLessThanOrEqual(PER_SOURCE)
    expect(open.length).toBeGreaterThan(PER_SOURCE - 4)
    for (const c of held.filter((c) => c.closedAt !== undefined)) expect(c.received).toBe('')
    for (const c of held) c.end()
    await Bun.sleep(300)
    expect((await fetch(`http://127.0.0.1:${lb.port}/health`)).status).toBe(200)
  })
})
