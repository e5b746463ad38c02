import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { readLedger } from '../src/ledger/ledger-file'
import { loadStore } from '../src/store/load-store'
import type { Store } from '../src/store/store'
import { utf8At } from '../src/query/order/sort-values'
import { makeTestApp, testStore, type TestApp } from './setup/test-app'
import { StandInOrigin } from './support/stand-in-origin'

/**
 * What's new: every photo's `added_at` (the publish time of the first index that held it, from
 * the ledger beside INDEX_DIR) and `date_received` (NASA's stated downlink time, only where the
 * records state it), as attributes beyond the interface, filters and sort keys.
 */
const ROOT = join(import.meta.dir, '..')

let t: TestApp
let store: Store
beforeAll(async () => {
  store = await testStore()
  t = await makeTestApp({ keyLimits: { hourly: 1e9, daily: 1e9 } })
})
afterAll(() => t.close())

const get = async (path: string) => {
  const r = await t.request(path)
  return { status: r.status, body: (await r.json()) as any }
}

/** Every photo of a query, page by page through the cursor. */
async function allPages(query: string, perPage = 100): Promise<any[]> {
  const out: any[] = []
  let cursor = ''
  for (;;) {
    const { status, body } = await get(`/api/v2/photos?${query}&per_page=${perPage}&cursor=${cursor}`)
    expect(status).toBe(200)
    out.push(...body.data)
    cursor = body.pagination?.cursor?.next
    if (!cursor) return out
  }
}

/** date_received as the source record states it (read from the record text, not the column). */
function statedReceived(row: number): number | undefined {
  const raw = utf8At(store.photos.raw, row)
  if (!raw.startsWith('{')) return undefined
  const v = (JSON.parse(raw) as { date_received?: unknown }).date_received
  if (typeof v !== 'string') return undefined
  return Date.parse(/(Z|[+-]\d{2}:?\d{2})$/.test(v) ? v : `${v}Z`)
}

describe('date_received', () => {
  test('is served exactly where the source record states it, and absent elsewhere', async () => {
    const stated = new Map<number, number>()
    for (let r = 0; r < store.photos.length; r++) {
      const v = statedReceived(r)
      if (v !== undefined) stated.set(store.photos.id[r]!, v)
    }
    expect(stated.size).toBeGreaterThan(1000)
    const listed = await allPages('fields=date_received&received_since=1970-01-01T00:00:00Z', 500)
    expect(listed.length).toBe(stated.size)
    for (const p of listed) expect(Date.parse(p.attributes.date_received)).toBe(stated.get(p.id)!)
    // A photo whose record states none: the attribute is left out, even when asked for by name.
    const row = store.photos.date_received.findIndex((v) => v !== v)
    const one = await get(`/api/v2/photos/${store.photos.id[row]}?fields=date_received,sol`)
    expect(one.status).toBe(200)
    expect(one.body.data.attributes).toEqual({ sol: store.photos.sol[row] })
  })

  test('received_since is exclusive and received_before inclusive, to the millisecond', async () => {
    const times = [...store.photos.date_received].filter((v) => v === v).sort((a, b) => a - b)
    const mid = times[Math.floor(times.length / 2)]!
    const iso = new Date(mid).toISOString()
    const at = times.filter((v) => v === mid).length
    const since = await get(`/api/v2/photos?received_since=${iso}&per_page=1`)
    const before = await get(`/api/v2/photos?received_before=${iso}&per_page=1`)
    expect(since.body.meta.total_count).toBe(times.filter((v) => v > mid).length)
    expect(before.body.meta.total_count).toBe(times.filter((v) => v <= mid).length)
    expect(since.body.meta.total_count + before.body.meta.total_count).toBe(times.length)
    expect(at).toBeGreaterThan(0)
    // The same instant in another offset is the same bound.
    const shifted = new Date(mid + 2 * 3600_000).toISOString().replace('Z', '+02:00').replace(/\.\d{3}\+/, `.${iso.slice(20, 23)}+`)
    expect((await get(`/api/v2/photos?received_since=${encodeURIComponent(shifted)}&per_page=1`)).body.meta.total_count).toBe(since.body.meta.total_count)
  })

  test('sorts ascending and descending with photos without one last, and pages exactly under cursors', async () => {
    const one = await allPages('sort=date_received&fields=date_received&rovers=perseverance', 1000)
    const paged = await allPages('sort=date_received&fields=date_received&rovers=perseverance', 37)
    expect(paged.map((p) => p.id)).toEqual(one.map((p) => p.id))
    const times = one.map((p) => (p.attributes.date_received ? Date.parse(p.attributes.date_received) : Infinity))
    for (let i = 1; i < times.length; i++) expect(times[i]! >= times[i - 1]!).toBe(true)
    const desc = await allPages('sort=-date_received&fields=date_received&rovers=perseverance', 53)
    const dt = desc.map((p) => (p.attributes.date_received ? Date.parse(p.attributes.date_received) : -Infinity))
    const present = dt.filter((v) => v !== -Infinity)
    for (let i = 1; i < present.length; i++) expect(present[i]! <= present[i - 1]!).toBe(true)
    expect(dt.slice(present.length).every((v) => v === -Infinity)).toBe(true)
    expect(desc.length).toBe(one.length)
  })
})

describe('added_at', () => {
  test('is an attribute beyond the interface: absent by default and in the presets below complete, present with complete and by name', async () => {
    const id = store.photos.id[0]
    const plain = await get(`/api/v2/photos/${id}`)
    expect(plain.body.data.attributes.added_at).toBeUndefined()
    for (const preset of ['minimal', 'standard', 'extended', 'scientific']) {
      expect((await get(`/api/v2/photos/${id}?field_set=${preset}`)).body.data.attributes.added_at).toBeUndefined()
    }
    const complete = await get(`/api/v2/photos/${id}?field_set=complete`)
    expect(complete.body.data.attributes.added_at).toBe(new Date(store.photos.added_at![0]!).toISOString())
    const named = await get(`/api/v2/photos/${id}?fields=added_at`)
    expect(named.body.data.attributes).toEqual({ added_at: new Date(store.photos.added_at![0]!).toISOString() })
  })

  test('bad arrival bounds are a 400 naming each parameter; since later than before too', async () => {
    const r = await get('/api/v2/photos?added_since=yesterday&received_before=2024-01-01&added_before=2024-01-01T00:00:00')
    expect(r.status).toBe(400)
    expect(r.body.errors.map((e: any) => e.parameter).sort()).toEqual(['added_before', 'added_since', 'received_before'])
    const plus = await get('/api/v2/photos?added_since=2024-01-01T00:00:00+01:00')
    expect(plus.status).toBe(400)
    expect(plus.body.errors[0].message).toContain('%2B')
    const crossed = await get('/api/v2/photos?added_since=2024-01-02T00:00:00Z&added_before=2024-01-01T00:00:00Z')
    expect(crossed.status).toBe(400)
    expect(crossed.body.errors.map((e: any) => e.parameter)).toEqual(['added_since'])
    const unknown = await get('/api/v2/photos?added_after=2024-01-01T00:00:00Z')
    expect(unknown.status).toBe(400)
  })
})

describe('the ledger across npm run update', () => {
  const work = mkdtempSync(join(tmpdir(), 'mv-arrivals-'))
  const origin = new StandInOrigin({ sols: 3, perSol: 60 })
  afterAll(() => {
    origin.stop()
    rmSync(work, { recursive: true, force: true })
  })
  const env = { ...process.env, BUILD_SOURCE_DIRS: join(work, 'no-sources') }
  const run = async (args: string[]) => {
    const p = Bun.spawn([process.execPath, ...args], { cwd: ROOT, env, stdout: 'pipe', stderr: 'pipe' })
    const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited])
    expect({ args, code, err: code === 0 ? '' : err }).toEqual({ args, code: 0, err: '' })
    return out
  }

  test('after an update brings a new sol, added_since the first publish returns exactly its photos and added_before none of them; a full rebuild keeps every added_at', async () => {
    mkdirSync(env.BUILD_SOURCE_DIRS)
    const feeds = join(work, 'feeds')
    const index = join(work, 'index')
    await run(['index-builder/fetch/cli.ts', '--all', '--rover', 'perseverance', '--feed-dir', feeds, '--base-url', origin.url, '--rate', '1000', '--json'])
    await run(['index-builder/cli.ts', '--out', index, '--page-store', feeds])
    const first = await loadStore(index)
    const firstIds = new Set(first.photos.id)
    expect(firstIds.size).toBe(3 * 60)
    const published = first.photos.added_at![0]!
    expect(new Set(first.photos.added_at).size).toBe(1)
    // NASA's stated downlink times came through from the feed records.
    expect(first.photos.date_received.every((v) => v === v)).toBe(true)

    await Bun.sleep(5) // a later millisecond for the next publish
    const sol = origin.addSol()
    await run(['index-builder/fetch/update-cli.ts', '--since-sols', '1', '--rover', 'perseverance', '--feed-dir', feeds, '--index-dir', index, '--base-url', origin.url, '--rate', '1000', '--json'])
    const updated = await loadStore(index)
    const newIds = [...updated.photos.id].filter((id) => !firstIds.has(id)).sort((a, b) => a - b)
    expect(newIds.length).toBe(60)

    const app = await makeTestApp({ store: updated, keyLimits: { hourly: 1e9, daily: 1e9 } })
    try {
      const iso = new Date(published).toISOString()
      const list = async (q: string) => {
        const r = await app.request(`/api/v2/photos?${q}&per_page=100&fields=sol,added_at`)
        expect(r.status).toBe(200)
        const body = (await r.json()) as any
        return Object.assign(body.data as any[], { total: body.meta.total_count as number })
      }
      const since = await list(`added_since=${iso}`)
      expect(since.map((p) => p.id).sort((a, b) => a - b)).toEqual(newIds)
      expect(since.every((p) => p.attributes.sol === sol && Date.parse(p.attributes.added_at) > published)).toBe(true)
      const before = await list(`added_before=${iso}`)
      expect(before.total).toBe(3 * 60)
      expect(before.some((p) => newIds.includes(p.id))).toBe(false)
      // Newest first by added_at: the new sol's photos lead.
      const newest = await list('sort=-added_at')
      expect(newest.slice(0, 60).map((p) => p.id).sort((a, b) => a - b)).toEqual(newIds)
    } finally {
      await app.close()
    }

    // The ledger: the first publish's photos, then the new ones, appended.
    const ledger = readLedger(index)!
    expect(ledger.length).toBe(4 * 60)
    expect([...ledger.id.subarray(180)].sort((a, b) => a - b)).toEqual(newIds)
    // A full rebuild of the same pages into the same INDEX_DIR keeps every added_at and position.
    await run(['index-builder/cli.ts', '--out', index, '--page-store', feeds])
    const rebuilt = await loadStore(index)
    expect(rebuilt.version).toBe(updated.version)
    expect([...rebuilt.arrivals.addedAt]).toEqual([...updated.arrivals.addedAt])
    expect([...rebuilt.arrivals.position]).toEqual([...updated.arrivals.position])
    expect(readLedger(index)!.length).toBe(4 * 60)
  }, 240_000)
})
