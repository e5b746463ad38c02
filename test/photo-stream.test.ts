import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildIndex } from '../index-builder/build-index'
import { loadStore } from '../src/store/load-store'
import type { Store } from '../src/store/store'
import { makeTestApp, type TestApp } from './setup/test-app'

/**
 * GET /api/v2/photos/stream: a stream opened before an index update receives each new photo once,
 * with its ledger position as id; Last-Event-ID resumes after a disconnect and after a restart
 * (another process loading the same version folder) with no gap and no repeat; the sixth stream of
 * a key is a 429; the heartbeat comment keeps an idle stream alive; delivered photos are charged
 * one request per 100.
 */
const DATA = join(import.meta.dir, '../../shared/data/raw/elbi3__Mars-Rover-Photo-Journal')
const SPIRIT = join(DATA, 'spiritSol1.json.gz')
const OPPORTUNITY = join(DATA, 'opportunitySol1.json.gz')
const CURIOSITY = join(DATA, 'sol1000Data.json.gz')

const work = mkdtempSync(join(tmpdir(), 'mv-stream-'))
let before: Store
let after: Store
let t: TestApp

beforeAll(async () => {
  const out = join(work, 'index')
  await buildIndex({ out, sources: [SPIRIT] })
  before = await loadStore(out)
  await Bun.sleep(5)
  await buildIndex({ out, sources: [SPIRIT, OPPORTUNITY, CURIOSITY] })
  after = await loadStore(out)
  t = await makeTestApp({ store: before, keyLimits: { hourly: 100_000, daily: 1_000_000 }, streamHeartbeatS: 1 } as never)
}, 120_000)
afterAll(async () => {
  await t.close()
  rmSync(work, { recursive: true, force: true })
})

interface Event { id?: string; event?: string; data?: string; comment?: string }

/** Reads Server-Sent Events from a response body (HTML Living Standard §9.2.6, the parts used here). */
class EventReader {
  #buf = ''
  #reader: { read(): Promise<{ done: boolean; value?: Uint8Array }>; cancel(): Promise<void> }
  #decoder = new TextDecoder()
  constructor(r: Response) {
    this.#reader = r.body!.getReader()
  }
  /** The next event or comment block, or undefined at the end of the stream or after `ms`. */
  async next(ms = 5000): Promise<Event | undefined> {
    const deadline = performance.now() + ms
    for (;;) {
      const end = this.#buf.indexOf('\n\n')
      if (end >= 0) {
        const block = this.#buf.slice(0, end)
        this.#buf = this.#buf.slice(end + 2)
        const e: Event = {}
        for (const line of block.split('\n')) {
          if (line.startsWith(':')) e.comment = line.slice(1).trim()
          else {
            const at = line.indexOf(':')
            const k = line.slice(0, at)
            const v = line.slice(at + 1).replace(/^ /, '')
            if (k === 'id' || k === 'event' || k === 'data') e[k] = v
          }
        }
        return e
      }
      const left = deadline - performance.now()
      if (left <= 0) return undefined
      const chunk = await Promise.race([this.#reader.read(), Bun.sleep(left).then(() => 'timeout' as const)])
      if (chunk === 'timeout' || chunk.done) return undefined
      this.#buf += this.#decoder.decode(chunk.value, { stream: true })
    }
  }
  /** The next `n` photo events (skipping comments). */
  async photos(n: number, ms = 10_000): Promise<Event[]> {
    const out: Event[] = []
    const deadline = performance.now() + ms
    while (out.length < n) {
      const e = await this.next(Math.max(1, deadline - performance.now()))
      if (!e) break
      if (e.event === 'photo') out.push(e)
    }
    return out
  }
  cancel() {
    return this.#reader.cancel()
  }
}

const open = async (app: TestApp, query: string, lastEventId?: string) => {
  const r = await app.request(`/api/v2/photos/stream?${query}`, lastEventId === undefined ? {} : { headers: { 'last-event-id': lastEventId } })
  expect(r.status).toBe(200)
  expect(r.headers.get('content-type')).toBe('text/event-stream; charset=utf-8')
  return new EventReader(r)
}

/** The new photos of `after` in ledger order, as [position, id]. */
function newInLedgerOrder(filter: (row: number) => boolean): Array<[number, number]> {
  const a = after.arrivals
  const out: Array<[number, number]> = []
  for (const row of a.rowsByPosition) if (a.position[row]! >= before.arrivals.length && filter(row)) out.push([a.position[row]!, after.photos.id[row]!])
  return out
}

describe('the photo stream', () => {
  test('opened before an update, it receives each new matching photo once, in ledger order, its ledger position as id; Last-Event-ID resumes after a disconnect and in a fresh process with no gap or repeat', async () => {
    const opportunity = 1 // rover code (src/catalog/rovers.ts)
    const want = newInLedgerOrder((row) => after.photos.rover[row] === opportunity)
    expect(want.length).toBe(95)
    const s = await open(t, 'rovers=opportunity&fields=sol')
    expect((await s.next())!.comment).toBe('stream of new photos')
    t.deps.stores.swap(after)
    const got = await s.photos(40)
    expect(got.map((e) => [Number(e.id), JSON.parse(e.data!).id])).toEqual(want.slice(0, 40))
    // Each event's data is the photo as the list writes it, with the same output parameters.
    const one = (await (await t.request(`/api/v2/photos/${want[0]![1]}?fields=sol`)).json()) as { data: unknown }
    expect(JSON.parse(got[0]!.data!)).toEqual(one.data)
    expect(JSON.parse(got[0]!.data!)).toMatchObject({ id: want[0]![1], type: 'photo', attributes: { sol: 1 } })
    await s.cancel()
    // Reconnect with the last id seen: the rest, from the next one on.
    const resumed = await open(t, 'rovers=opportunity&fields=sol', got.at(-1)!.id)
    const rest = await resumed.photos(55)
    expect(rest.map((e) => [Number(e.id), JSON.parse(e.data!).id])).toEqual(want.slice(40))
    expect(await resumed.photos(1, 300)).toEqual([])
    await resumed.cancel()
    // A restarted server (another process loading the same version folder) gives the same ids.
    const other = await makeTestApp({ store: await loadStore(after.dir) })
    try {
      const again = await open(other, 'rovers=opportunity&fields=sol', String(want[69]![0]))
      expect((await again.photos(25)).map((e) => [Number(e.id), JSON.parse(e.data!).id])).toEqual(want.slice(70))
      await again.cancel()
    } finally {
      await other.close()
    }
    t.deps.stores.swap(before)
  }, 60_000)

  test('sends a heartbeat comment while idle, and refuses the sixth open stream of a key with a 429 problem document, not counted, until one closes', async () => {
    const streams = [] as EventReader[]
    for (let i = 0; i < 5; i++) streams.push(await open(t, 'rovers=spirit'))
    const first = streams[0]!
    expect((await first.next())!.comment).toBe('stream of new photos')
    const beat = await first.next(3000)
    expect(beat?.comment).toBe('heartbeat')
    // Each open stream holds its in-flight slot.
    const keyId = ((await t.deps.keys.lookup(t.key)) as { id: number }).id
    const inFlight = () => (t.deps.limits as unknown as { inFlight(id: number): number }).inFlight(keyId)
    expect(inFlight()).toBe(5)
    const remaining = async () => Number((await t.request('/api/v2/rovers')).headers.get('x-ratelimit-remaining'))
    const left = await remaining()
    const sixth = await t.request('/api/v2/photos/stream?rovers=spirit')
    expect(sixth.status).toBe(429)
    expect(sixth.headers.get('content-type')).toStartWith('application/json')
    expect(sixth.headers.get('retry-after')).toBe('5')
    expect(Number(sixth.headers.get('x-ratelimit-remaining'))).toBe(left)
    const problem = (await sixth.json()) as { type: string; status: number; detail: string }
    expect(problem).toMatchObject({ type: '/errors/rate-limit-exceeded', status: 429 })
    expect(problem.detail).toContain('STREAMS_PER_KEY')
    // Refused calls are not counted: the next answer's count is the one before it, less its own call.
    expect(await remaining()).toBe(left - 1)
    expect((t.deps.limits as unknown as { streamsOpen(id: number): number }).streamsOpen(keyId)).toBe(5)
    await streams.pop()!.cancel()
    await Bun.sleep(20)
    const again = await open(t, 'rovers=spirit')
    streams.push(again)
    for (const s of streams) await s.cancel()
    await Bun.sleep(20)
    expect(inFlight()).toBe(0)
    expect((t.deps.limits as unknown as { streamsOpen(id: number): number }).streamsOpen(keyId)).toBe(0)
  }, 30_000)

  test('charges one request per 100 photos delivered, seen in X-RateLimit-Remaining of the next answer', async () => {
    const want = newInLedgerOrder(() => true)
    expect(want.length).toBe(95 + 856)
    const s = await open(t, 'fields=sol')
    const start = Number((await t.request('/api/v2/rovers')).headers.get('x-ratelimit-remaining'))
    t.deps.stores.swap(after)
    const got = await s.photos(want.length, 30_000)
    expect(got.map((e) => Number(e.id))).toEqual(want.map(([p]) => p))
    await Bun.sleep(20)
    const end = Number((await t.request('/api/v2/rovers')).headers.get('x-ratelimit-remaining'))
    // The /rovers answer itself costs one; 951 photos cost 9 more.
    expect(start - end).toBe(1 + Math.floor(want.length / 100))
    await s.cancel()
    t.deps.stores.swap(before)
  }, 60_000)

  test('its OpenAPI operation declares exactly the headers its 200 sends (no ETag) and no 304, If-None-Match never makes it one, and HEAD answers those headers at once without opening a stream', async () => {
    const doc = (await (await t.anonymous('/api/v2/openapi.json')).json()) as { paths: Record<string, { get: { responses: Record<string, { headers?: Record<string, unknown> }> } }> }
    const op = doc.paths['/api/v2/photos/stream']!.get
    expect(Object.keys(op.responses)).not.toContain('304')
    const declared = Object.keys(op.responses['200']!.headers!).map((h) => h.toLowerCase()).sort()
    for (const inm of [undefined, '*', 'W/"anything"']) {
      const r = await t.request('/api/v2/photos/stream?rovers=spirit', inm ? { headers: { 'if-none-match': inm } } : {})
      expect(r.status).toBe(200)
      const sent = [...r.headers.keys()].filter((h) => h !== 'content-type').sort()
      expect(sent).toEqual(declared)
      expect(r.headers.get('cache-control')).toBe('no-store')
      await r.body!.cancel()
    }
    const head = await t.request('/api/v2/photos/stream?rovers=spirit', { method: 'HEAD' })
    expect(head.status).toBe(200)
    expect([...head.headers.keys()].filter((h) => h !== 'content-type' && h !== 'content-length').sort()).toEqual(declared)
    expect(await head.text()).toBe('')
    const keyId = ((await t.deps.keys.lookup(t.key)) as { id: number }).id
    expect((t.deps.limits as unknown as { streamsOpen(id: number): number }).streamsOpen(keyId)).toBe(0)
  })

  test('bad filters are a 400 naming them before any stream opens', async () => {
    const r = await t.request('/api/v2/photos/stream?cameras=NOPE&added_since=later')
    expect(r.status).toBe(400)
    expect(((await r.json()) as any).errors.map((e: any) => e.parameter).sort()).toEqual(['added_since', 'cameras'])
  })
})
