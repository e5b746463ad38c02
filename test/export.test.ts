import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api'
import { tableFromIPC, type Table } from 'apache-arrow'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { makeTestApp, type TestApp } from './setup/test-app'
import { exportCounters } from '../src/query/export/export-stream'

/**
 * GET /api/v2/photos/export through the assembled app over the real test index: each format is
 * read back by its own reader (apache-arrow for Arrow, DuckDB for NDJSON and CSV) and compared,
 * id by id and value by value, with what the paged list API answers for the same query.
 */
type Photo = { id: number; type: string; attributes: Record<string, unknown>; relationships?: Record<string, { id: string; attributes?: Record<string, string> }> }

let t: TestApp
let duck: DuckDBConnection
let work: string

beforeAll(async () => {
  t = await makeTestApp()
  duck = await (await DuckDBInstance.create(':memory:')).connect()
  work = mkdtempSync(join(tmpdir(), 'mv-export-'))
})
afterAll(async () => {
  await t.close()
  rmSync(work, { recursive: true, force: true })
})

/** Every photo of `query` through the paged list (cursor pages of 100). */
async function paged(app: TestApp, query: string): Promise<Photo[]> {
  const out: Photo[] = []
  let cursor = ''
  for (let i = 0; i < 500; i++) {
    const r = await app.request(`/api/v2/photos?${query}&per_page=100${cursor ? '&cursor=' + cursor : ''}`)
    expect(r.status).toBe(200)
    const body = (await r.json()) as { data: Photo[]; pagination: { cursor?: { next?: string } } }
    out.push(...body.data)
    const next = body.pagination.cursor?.next
    if (!next) return out
    cursor = encodeURIComponent(next)
  }
  throw new Error('too many pages')
}

/** `query` with the rover and camera relationships every export writes (include=rover,camera). */
const withRel = (q: string) => (q.includes('include=') ? q : q + '&include=rover,camera')

/**
 * The photos of `q` as the list writes them (`want`), and each with its rover and camera
 * relationships (`rel`): one paged walk with include=rover,camera, the relationships removed
 * for `want` when `q` does not ask for them (the rest of the object does not depend on include).
 */
async function pagedWithRel(q: string): Promise<{ want: Photo[]; rel: Photo[] }> {
  const rel = await paged(t, withRel(q))
  // Without include the list keeps only the stereo and sequence relationships.
  const want = q.includes('include=') ? rel : rel.map(({ relationships, ...p }) => {
    const { rover: _r, camera: _c, ...kept } = relationships ?? {}
    return Object.keys(kept).length ? { ...p, relationships: kept } : p
  })
  return { want, rel }
}

/**
 * A photo's JSON flattened as the export's columns name it ("dimensions.width", "rover.name");
 * raw kept as its JSON value; `rover` and `camera` from the same photo listed with both
 * relationships (`r`).
 */
function flat(p: Photo, r: Photo): Record<string, unknown> {
  expect(r.id).toBe(p.id)
  const out: Record<string, unknown> = { id: p.id, rover: r.relationships!.rover!.id, camera: r.relationships!.camera!.id }
  const walk = (o: Record<string, unknown>, prefix: string) => {
    for (const [k, v] of Object.entries(o)) {
      if (k === 'raw' && prefix === '') out.raw = v
      else if (v !== null && typeof v === 'object') walk(v as Record<string, unknown>, prefix + k + '.')
      else out[prefix + k] = v
    }
  }
  walk(p.attributes, '')
  for (const [name, rel] of Object.entries(p.relationships ?? {})) {
    // The stereo partner is the column stereo_partner_id; the sequence is no export column.
    if (name === 'stereo') out.stereo_partner_id = rel.id
    if (name === 'stereo' || name === 'sequence') continue
    out[name + '.id'] = rel.id
    for (const [k, v] of Object.entries(rel.attributes ?? {})) out[name + '.' + k] = v
  }
  return out
}

async function exportBody(query: string, init?: RequestInit): Promise<{ r: Response; bytes: Uint8Array }> {
  const r = await t.request('/api/v2/photos/export?' + query, init)
  return { r, bytes: new Uint8Array(await r.arrayBuffer()) }
}

function arrowValue(v: unknown, type: string): unknown {
  if (v === null || v === undefined) return undefined
  if (type.startsWith('Date32')) return new Date(Number(v)).toISOString().slice(0, 10)
  if (type.startsWith('Timestamp')) return new Date(Number(v)).toISOString()
  return v
}

function expected(p: Photo, r: Photo, name: string, float32: boolean): unknown {
  const v = flat(p, r)[name]
  if (name === 'raw' && v !== undefined) return typeof v === 'string' ? v : JSON.stringify(v)
  return float32 && typeof v === 'number' ? Math.fround(v) : v
}

const QUERIES = [
  'rovers=spirit',
  'rovers=opportunity,spirit&sort=sol,-date_taken_utc&include=rover,camera',
  'rovers=perseverance&sol_max=40&field_set=complete&sort=-width,nasa_id',
  'fields=nasa_id,sol,telemetry,location&sort=-mast_azimuth',
  'rovers=spirit,curiosity&sol_max=300&fields=nasa_id,sol,earth_date,images&sort=earth_date',
  'rovers=spirit&field_set=minimal&fields=nasa_id&sort=-id',
  // The source records (raw: commas and quotes) in the default order, whose chunks are
  // contiguous rows: CSV checks each chunk's text bytes at once, then quotes value by value.
  'rovers=perseverance,curiosity&sol_max=60&field_set=complete',
]

describe('each format read back by its own reader equals the paged API', () => {
  for (const q of QUERIES) {
    test(`arrow (apache-arrow) — ${q}`, async () => {
      const { want, rel } = await pagedWithRel(q)
      expect(want.length).toBeGreaterThan(50)
      const { r, bytes } = await exportBody(q + '&format=arrow')
      expect(r.headers.get('content-type')).toBe('application/vnd.apache.arrow.stream')
      expect(r.headers.get('x-export-rows')).toBe(String(want.length))
      const table: Table = tableFromIPC(bytes)
      expect(table.numRows).toBe(want.length)
      const names = table.schema.fields.map((f) => f.name)
      const cols = table.schema.fields.map((f) => ({ name: f.name, type: String(f.type), vec: table.getChild(f.name)! }))
      for (let i = 0; i < want.length; i++) {
        const row: Record<string, unknown> = {}
        for (const c of cols) row[c.name] = arrowValue(c.vec.get(i), c.type)
        const exp: Record<string, unknown> = {}
        for (const c of cols) exp[c.name] = expected(want[i]!, rel[i]!, c.name, c.type === 'Float32')
        expect(row).toEqual(exp)
      }
      expect(names.slice(0, 3)).toEqual(['id', 'rover', 'camera'])
      expect(String(table.schema.fields[1]!.type)).toStartWith('Dictionary')
      // Every attribute of the JSON has its column.
      for (let i = 0; i < want.length; i++) for (const k of Object.keys(flat(want[i]!, rel[i]!))) expect(names).toContain(k)
    })

    test(`csv (DuckDB read_csv_auto) — ${q}`, async () => {
      const { want, rel } = await pagedWithRel(q)
      const { r, bytes } = await exportBody(q + '&format=csv')
      expect(r.headers.get('content-disposition')).toMatch(/^attachment; filename="photos-[0-9a-f]+\.csv"$/)
      const file = join(work, `e${Bun.hash(q)}.csv`)
      writeFileSync(file, bytes)
      // Texts compared exactly (all_varchar); typed read: ids come back as integers in order.
      const rows = (await duck.runAndReadAll(`SELECT * FROM read_csv_auto('${file}', all_varchar=true, header=true)`)).getRowObjectsJS()
      expect(rows.length).toBe(want.length)
      for (let i = 0; i < want.length; i++) {
        const exp = flat(want[i]!, rel[i]!)
        expect(Object.keys(rows[i]!).slice(0, 3)).toEqual(['id', 'rover', 'camera'])
        for (const [name, text] of Object.entries(rows[i]!)) {
          const e = exp[name]
          if (name === 'raw' && text !== null) expect(JSON.parse(text as string)).toEqual(e)
          else expect(text === null ? undefined : text).toBe(e === undefined ? undefined : String(e))
        }
      }
      const typed = (await duck.runAndReadAll(`SELECT id FROM read_csv_auto('${file}')`)).getRowsJS().map((x) => Number(x[0]))
      expect(typed).toEqual(want.map((p) => p.id))
    })

    test(`ndjson (DuckDB read_json_auto) — ${q}`, async () => {
      // Each line carries the rover and camera: the list's photo with include=rover,camera.
      const want = await paged(t, withRel(q))
      const { r, bytes } = await exportBody(q + '&format=ndjson')
      expect(r.headers.get('content-type')).toBe('application/x-ndjson')
      const text = new TextDecoder().decode(bytes)
      expect(text.endsWith('\n')).toBe(true)
      // Byte for byte what the list writes per photo (member order included).
      expect(text.trimEnd().split('\n')).toEqual(want.map((p) => JSON.stringify(p)))
      const file = join(work, `e${Bun.hash(q)}.ndjson`)
      writeFileSync(file, bytes)
      const rows = (await duck.runAndReadAll(`SELECT id, attributes.sol AS sol, attributes.nasa_id AS nasa_id FROM read_json_auto('${file}', format='newline_delimited')`)).getRowsJS()
      expect(rows.map((x) => Number(x[0]))).toEqual(want.map((p) => p.id))
      expect(rows.map((x) => (x[1] === null ? undefined : Number(x[1])))).toEqual(want.map((p) => p.attributes.sol as number | undefined))
      expect(rows.map((x) => x[2] ?? undefined)).toEqual(want.map((p) => p.attributes.nasa_id as string | undefined))
    })
  }

  test('the whole catalogue in the default order: arrow ids equal the paged ids (contiguous batches sliced from the store)', async () => {
    const want = (await paged(t, 'fields=nasa_id')).map((p) => p.id)
    const table = tableFromIPC((await exportBody('format=arrow&fields=nasa_id')).bytes)
    expect([...table.getChild('id')!.toArray()]).toEqual(want)
    expect(table.batches.length).toBeGreaterThan(1)
  })
})

describe('rover and camera on every export', () => {
  test('fields=sol still exports each photo\'s rover (slug) and camera (abbreviation): CSV header and records, Arrow columns, NDJSON relationships', async () => {
    const rel = await paged(t, 'rovers=spirit,perseverance&sol_max=3&fields=sol&include=rover,camera')
    expect(new Set(rel.map((p) => p.relationships!.rover!.id))).toEqual(new Set(['spirit', 'perseverance']))
    const q = 'rovers=spirit,perseverance&sol_max=3&fields=sol'
    const csv = new TextDecoder().decode((await exportBody(q + '&format=csv')).bytes).split('\r\n')
    // stereo_partner_id is on every export, empty for a photo without a partner.
    expect(csv[0]).toBe('id,rover,camera,sol,stereo_partner_id')
    expect(csv.slice(1, -1)).toEqual(rel.map((p) => `${p.id},${p.relationships!.rover!.id},${p.relationships!.camera!.id},${p.attributes.sol},${p.relationships!.stereo?.id ?? ''}`))
    expect(rel.some((p) => p.relationships!.stereo)).toBe(true)
    const table = tableFromIPC((await exportBody(q + '&format=arrow')).bytes)
    expect(table.schema.fields.map((f) => f.name)).toEqual(['id', 'rover', 'camera', 'sol', 'stereo_partner_id'])
    expect([...table.getChild('rover')!].map(String)).toEqual(rel.map((p) => p.relationships!.rover!.id))
    expect([...table.getChild('camera')!].map(String)).toEqual(rel.map((p) => p.relationships!.camera!.id))
    const lines = new TextDecoder().decode((await exportBody(q + '&format=ndjson')).bytes).trimEnd().split('\n')
    expect(lines).toEqual(rel.map((p) => JSON.stringify(p)))
  })
})

describe('format choice', () => {
  test('Accept picks the format when format= is absent; format= wins over Accept; an unknown Accept gets one JSON array (no 406)', async () => {
    const csv = await exportBody('rovers=spirit', { headers: { accept: 'text/csv' } })
    expect(csv.r.headers.get('content-type')).toStartWith('text/csv')
    const arrow = await exportBody('rovers=spirit', { headers: { accept: 'text/csv;q=0.5, application/vnd.apache.arrow.stream' } })
    expect(arrow.r.headers.get('content-type')).toBe('application/vnd.apache.arrow.stream')
    const wins = await exportBody('rovers=spirit&format=ndjson', { headers: { accept: 'text/csv' } })
    expect(wins.r.headers.get('content-type')).toBe('application/x-ndjson')
    const unknown = await exportBody('rovers=spirit', { headers: { accept: 'image/png' } })
    expect(unknown.r.status).toBe(200)
    expect(unknown.r.headers.get('content-type')).toBe('application/json; charset=utf-8')
    expect(JSON.parse(new TextDecoder().decode(unknown.bytes))).toEqual(await paged(t, withRel('rovers=spirit')))
    expect(csv.r.headers.get('vary')).toBe('Accept')
  })

  test('bad parameters are the list\'s 400 naming each one, format and max_rows included', async () => {
    const { r, bytes } = await exportBody('format=xml&max_rows=-1&sol=abc&sort=nope')
    expect(r.status).toBe(400)
    const body = JSON.parse(new TextDecoder().decode(bytes))
    expect(body.errors.map((e: { parameter: string }) => e.parameter).sort()).toEqual(['format', 'max_rows', 'sol', 'sort'])
    const list = (await (await t.request("/api/v2/photos?sol=abc")).json()) as { errors: unknown[] }
    expect(body.errors.find((e: { parameter: string }) => e.parameter === 'sol')).toEqual(list.errors[0])
  })
})

describe('charging and limits', () => {
  test('one request per started 1,000 rows after max_rows, stated in X-Export-Charged and taken from both windows of the RateLimit figures', async () => {
    const a = await makeTestApp()
    try {
      const day = (r: Response) => Number(/"day";r=(\d+)/.exec(r.headers.get('ratelimit')!)![1])
      const hour = (r: Response) => Number(/"hour";r=(\d+)/.exec(r.headers.get('ratelimit')!)![1])
      const before = await a.request('/api/v2/rovers')
      const r = await a.request('/api/v2/photos/export?format=csv&max_rows=2001')
      await r.arrayBuffer()
      expect(r.headers.get('x-export-rows')).toBe('2001')
      expect(r.headers.get('x-export-charged')).toBe('3')
      expect(r.headers.get('x-ratelimit-remaining')).toBe('9996')
      // The export is charged in the day window as in the hour window, and says so.
      expect(hour(before) - hour(r)).toBe(3)
      expect(day(before) - day(r)).toBe(3)
      const next = await a.request('/api/v2/rovers')
      expect(next.headers.get('x-ratelimit-remaining')).toBe('9995')
      expect(day(r) - day(next)).toBe(1)
      const small = await a.request('/api/v2/photos/export?rovers=spirit&max_rows=0')
      expect(await small.json()).toEqual([])
      expect(small.headers.get('x-export-charged')).toBe('1')
    } finally {
      await a.close()
    }
  })

  test('an export costing more than the key has left is 429 stating the cost before any byte, and counts nothing', async () => {
    const a = await makeTestApp({ keyLimits: { hourly: 5 } })
    try {
      const r = await a.request('/api/v2/photos/export?format=arrow')
      expect(r.status).toBe(429)
      const body = (await r.json()) as { detail: string }
      const all = a.deps.stores.current.manifest.rows.photos
      expect(body.detail).toContain(`export of ${all} photos costs ${Math.ceil(all / 1000)} requests`)
      expect(body.detail).toContain('5 of its hourly limit of 5 left')
      expect(r.headers.get('x-ratelimit-remaining')).toBe('5')
      const ok = await a.request('/api/v2/photos/export?format=arrow&max_rows=4500')
      expect(ok.status).toBe(200)
      expect(tableFromIPC(new Uint8Array(await ok.arrayBuffer())).numRows).toBe(4500)
      expect(ok.headers.get('x-ratelimit-remaining')).toBe('0')
    } finally {
      await a.close()
    }
  })

  test('the server cap EXPORT_MAX_ROWS bounds max_rows', async () => {
    const a = await makeTestApp({ exportMaxRows: 10 })
    try {
      const r = await a.request('/api/v2/photos/export?format=ndjson&max_rows=500')
      expect((await r.text()).trimEnd().split('\n').length).toBe(10)
      expect(r.headers.get('x-export-total')).toBe(String(a.deps.stores.current.manifest.rows.photos))
    } finally {
      await a.close()
    }
  })

  test('the in-flight slot is held until the stream ends', async () => {
    const a = await makeTestApp({ keyLimits: { concurrent: 1 }, exportChunkRows: 100 })
    try {
      const r = await a.request('/api/v2/photos/export?format=ndjson')
      const reader = r.body!.getReader()
      await reader.read()
      expect((await a.request('/api/v2/rovers')).status).toBe(429)
      while (!(await reader.read()).done) {}
      expect((await a.request('/api/v2/rovers')).status).toBe(200)
    } finally {
      await a.close()
    }
  })

  test('HEAD gives the headers without a body, charges only the call and frees its slot at once', async () => {
    const a = await makeTestApp({ keyLimits: { concurrent: 1 } })
    try {
      const r = await a.request('/api/v2/photos/export?format=csv', { method: 'HEAD' })
      expect(r.status).toBe(200)
      expect(r.headers.get('x-export-rows')).toBe(String(a.deps.stores.current.manifest.rows.photos))
      expect(r.headers.get('x-export-charged')).toBe('1')
      expect(r.headers.get('x-ratelimit-remaining')).toBe('9999')
      expect((await r.arrayBuffer()).byteLength).toBe(0)
      expect((await a.request('/api/v2/rovers')).status).toBe(200)
    } finally {
      await a.close()
    }
  })

  test('ETag per format: If-None-Match with the same format is 304 and not charged; another format\'s tag does not match', async () => {
    const first = await exportBody('rovers=spirit&format=csv')
    const tag = first.r.headers.get('etag')!
    const again = await t.request('/api/v2/photos/export?rovers=spirit&format=csv', { headers: { 'if-none-match': tag } })
    expect(again.status).toBe(304)
    expect(again.headers.get('x-ratelimit-remaining')).toBe(first.r.headers.get('x-ratelimit-remaining'))
    const other = await t.request('/api/v2/photos/export?rovers=spirit', { headers: { 'if-none-match': tag, accept: 'application/x-ndjson' } })
    expect(other.status).toBe(200)
    expect(other.headers.get('etag')).not.toBe(tag)
    await other.arrayBuffer()
  })
})

describe('streaming', () => {
  test('over a real HTTP server (whose sink copies, so the chunk buffer is reused) the bytes equal the in-process body', async () => {
    const a = await makeTestApp({ exportChunkRows: 200 })
    const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (req) => a.app.handle(req) })
    try {
      for (const q of ['format=ndjson', 'format=csv&sort=sol', 'format=arrow']) {
        const url = `http://127.0.0.1:${server.port}/api/v2/photos/export?${q}`
        const wire = new Uint8Array(await (await fetch(url, { headers: { 'x-api-key': a.key } })).arrayBuffer())
        const local = new Uint8Array(await (await a.request('/api/v2/photos/export?' + q)).arrayBuffer())
        expect(wire.byteLength).toBeGreaterThan(1_000_000)
        expect(Bun.hash(wire)).toBe(Bun.hash(local))
      }
    } finally {
      server.stop(true)
      await a.close()
    }
  })

  test('Arrow batches of thousands of rows, whose scratch buffers go out as views, arrive intact over HTTP to a pausing client and in process to Response#text', async () => {
    const a = await makeTestApp({})
    const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (req) => a.app.handle(req) })
    try {
      for (const q of ['format=arrow', 'format=arrow&sort=-sol,id']) {
        // Both read chunk by chunk, every chunk kept until the end, with pauses: over HTTP the
        // sink holds a backlog while the next batch reuses the scratch; in process the reader
        // keeps the very chunks it is given.
        const local = await keptChunks(await a.request('/api/v2/photos/export?' + q))
        const wire = await keptChunks(await fetch(`http://127.0.0.1:${server.port}/api/v2/photos/export?${q}`, { headers: { 'x-api-key': a.key } }))
        expect(Buffer.from(local).equals(new Uint8Array(await (await a.request('/api/v2/photos/export?' + q)).arrayBuffer()))).toBe(true)
        // Response#text keeps the bytes it is given: a reused buffer handed over would show here.
        expect(await (await a.request('/api/v2/photos/export?' + q)).text()).toBe(new TextDecoder().decode(local))
        expect(wire.byteLength).toBe(local.byteLength)
        expect(Bun.hash(wire)).toBe(Bun.hash(local))
        expect(tableFromIPC(wire).numRows).toBeGreaterThan(8192)
      }
    } finally {
      server.stop(true)
      await a.close()
    }
  })

  test('a body read whole (Response#text) equals one read chunk by chunk: no chunk is overwritten by the next', async () => {
    const a = await makeTestApp({ exportChunkRows: 300 })
    try {
      for (const q of ['format=ndjson', 'format=csv', 'fields=sol']) {
        const whole = await (await a.request('/api/v2/photos/export?' + q)).text()
        const reader = (await a.request('/api/v2/photos/export?' + q)).body!.getReader()
        const parts: Uint8Array[] = []
        for (let r = await reader.read(); !r.done; r = await reader.read()) parts.push(r.value)
        expect(whole).toBe(Buffer.concat(parts).toString('utf8'))
        expect(parts.length).toBeGreaterThan(1)
      }
    } finally {
      await a.close()
    }
  })

  test('a client that disconnects over a real socket stops the work at once: rows produced stop short of the total and the slot is freed', async () => {
    const a = await makeTestApp({ exportChunkRows: 50, keyLimits: { concurrent: 1 } })
    const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (req) => a.app.handle(req) })
    try {
      const before = exportCounters.rowsProduced
      const socketDone = Promise.withResolvers<void>()
      let got = 0
      const sock = await Bun.connect({
        hostname: '127.0.0.1',
        port: server.port!,
        socket: {
          data(s, chunk) {
            got += chunk.length
            if (got > 20_000 && got - chunk.length <= 20_000) {
              s.terminate()
              socketDone.resolve()
            }
          },
          close() { socketDone.resolve() },
          error() { socketDone.resolve() },
        },
      })
      sock.write(`GET /api/v2/photos/export?format=ndjson&field_set=complete HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: ${a.key}\r\n\r\n`)
      await socketDone.promise
      // Wait for the end event, then prove that nothing more is produced.
      for (let i = 0; i < 100 && !a.logs.some((l) => l.event === 'export.end'); i++) await Bun.sleep(20)
      const end = a.logs.find((l) => l.event === 'export.end')!
      expect(end.fields.outcome).toBe('cancelled')
      // What was produced is what the socket buffers took before the close (a few MB), not the whole export.
      const produced = exportCounters.rowsProduced - before
      expect(produced).toBeLessThan(a.deps.stores.current.manifest.rows.photos)
      expect(end.fields.rows).toBe(produced)
      await Bun.sleep(200)
      expect(exportCounters.rowsProduced - before).toBe(produced)
      expect((await a.request('/api/v2/rovers')).status).toBe(200) // the slot was given back
    } finally {
      server.stop(true)
      await a.close()
    }
  })

  test('a slow reader holds the export back (backpressure) and past EXPORT_TIMEOUT_S gets an error line, then the stream fails', async () => {
    const a = await makeTestApp({ exportChunkRows: 100, exportTimeoutS: 0.3 })
    try {
      const before = exportCounters.rowsProduced
      const r = await a.request('/api/v2/photos/export?format=ndjson')
      const reader = r.body!.getReader()
      await reader.read()
      await Bun.sleep(500)
      // Not the 11,277 rows: the sink takes chunks until it holds its high-water mark (a few hundred KB), then the loop waits.
      expect(exportCounters.rowsProduced - before).toBeLessThanOrEqual(600)
      let text = ''
      let failed = false
      try {
        for (;;) {
          const { done, value } = await reader.read()
          if (done) break
          text += new TextDecoder().decode(value)
        }
      } catch {
        failed = true
      }
      expect(failed).toBe(true)
      const last = JSON.parse(text.trimEnd().split('\n').at(-1)!)
      expect(last.error.detail).toContain('EXPORT_TIMEOUT_S')
      expect(a.logs.find((l) => l.event === 'export.end')!.fields.outcome).toBe('timeout')
    } finally {
      await a.close()
    }
  })

  test('a reload during an export: the stream finishes on the snapshot it started with; the next export uses the new one', async () => {
    const out = join(work, 'small-index')
    const p = Bun.spawn([process.execPath, 'index-builder/cli.ts', '--out', out, '--only-sources', join(import.meta.dir, '../../shared/data/raw/elbi3__Mars-Rover-Photo-Journal')], { cwd: join(import.meta.dir, '..'), stdout: 'pipe', stderr: 'pipe' })
    expect(await p.exited).toBe(0)
    const { loadStore } = await import('../src/store/load-store')
    const next = await loadStore(out)
    const a = await makeTestApp({ exportChunkRows: 500 })
    try {
      const old = a.deps.stores.current
      expect(next.version).not.toBe(old.version)
      const want = (await paged(a, 'fields=sol')).map((x) => x.id)
      const r = await a.request('/api/v2/photos/export?format=csv&fields=sol')
      const reader = r.body!.getReader()
      let text = new TextDecoder().decode((await reader.read()).value)
      a.deps.stores.swap(next)
      for (;;) {
        const { done, value } = await reader.read()
        if (done) break
        text += new TextDecoder().decode(value)
      }
      const ids = text.trimEnd().split('\r\n').slice(1).map((l) => Number(l.split(',')[0]))
      expect(ids).toEqual(want)
      expect(r.headers.get('content-disposition')).toContain(`photos-${old.version}.csv`)
      const after = await a.request('/api/v2/photos/export?format=csv&fields=sol')
      expect(after.headers.get('content-disposition')).toContain(`photos-${next.version}.csv`)
      expect(Number(after.headers.get('x-export-rows'))).toBe(next.photos.length)
      await after.arrayBuffer()
    } finally {
      await a.close()
    }
  })
})

/** A body read chunk by chunk, pausing now and then, every chunk kept and joined at the end. */
async function keptChunks(res: Response): Promise<Buffer> {
  const reader = res.body!.getReader()
  const parts: Uint8Array[] = []
  for (let r = await reader.read(); !r.done; r = await reader.read()) {
    parts.push(r.value)
    if (parts.length % 4 === 0) await Bun.sleep(2)
  }
  return Buffer.concat(parts)
}
