import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { isV2Path } from '../src/http/api-paths'
import { closestName } from '../src/http/query-names'
import { makeTestApp, type TestApp } from './setup/test-app'

/**
 * decisions.md, Filters: on every /api/v2 route a query parameter name the route does not take
 * is a 400 naming it, with the closest name the route takes; the derived names (`RoverList`, ...)
 * too; v1 keeps ignoring names it does not know. Such a URL is never answered from the response
 * cache or with a 304, at the edge or in the pipeline, and the 400 is counted like any other.
 */
let t: TestApp
const ids: Record<string, string> = {}
beforeAll(async () => {
  t = await makeTestApp({ keyLimits: { hourly: 1e6, daily: 1e6 } })
  const first = async (path: string) => String(((await (await t.request(path)).json()) as { data: Array<{ id: unknown }> }).data[0]!.id)
  ids['/api/v2/photos/:id'] = await first('/api/v2/photos?per_page=1')
  ids['/api/v2/photos/:id/related'] = ids['/api/v2/photos/:id']
  ids['/api/v2/locations/:id'] = await first('/api/v2/locations?per_page=1')
  ids['/api/v2/panoramas/:id'] = await first('/api/v2/panoramas?per_page=1')
})
afterAll(() => t.close())

type Problem = { status: number; detail: string; errors?: Array<{ parameter: string; message: string }> }

/** A concrete path of a declared route: real ids, so the route would answer 200 without the bad name. */
function concrete(pattern: string): string {
  return ids[pattern] !== undefined ? pattern.replace(':id', ids[pattern]!) : pattern.replace(':slug', 'curiosity').replace(':id', 'NAVCAM')
}

async function call(method: string, path: string, headers: Record<string, string> = {}) {
  const body = method === 'POST' ? JSON.stringify({ ids: [Number(ids['/api/v2/photos/:id'])] }) : undefined
  return t.request(path, { method, headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...headers }, body })
}

describe('every /api/v2 route refuses a query name it does not take', () => {
  test('each declared /api/v2 route: 200 as it is, 400 naming an unknown name, and the closest taken name for a re-cased one', async () => {
    const v2 = t.app.routeDocs.all().filter((d) => isV2Path(d.path))
    expect(v2.length).toBeGreaterThanOrEqual(20)
    for (const d of v2) {
      const path = concrete(d.path)
      const label = `${d.method} ${path}`
      const ok = await call(d.method, path)
      expect({ label, status: ok.status }).toEqual({ label, status: 200 })

      const bad = await call(d.method, `${path}?zz_not_a_name=1`)
      expect({ label, status: bad.status }).toEqual({ label, status: 400 })
      const p = (await bad.json()) as Problem
      expect({ label, errors: p.errors }).toEqual({ label, errors: [{ parameter: 'zz_not_a_name', message: 'is not a parameter of this endpoint' }] })
      expect(p.detail).toContain('zz_not_a_name')

      const taken = Object.keys(d.query?.properties ?? {})
      if (taken.length === 0) continue
      const name = taken[0]!
      const upper = await call(d.method, `${path}?${name.toUpperCase()}=1`)
      const q = (await upper.json()) as Problem
      expect({ label, status: upper.status, errors: q.errors }).toEqual({
        label,
        status: 400,
        errors: [{ parameter: name.toUpperCase(), message: `is not a parameter of this endpoint; did you mean "${name}"?` }],
      })
    }
  })

  test('the v1 names on the photo list: rover -> rovers, camera -> cameras, ROVERS -> rovers, one 400 naming all three', async () => {
    const r = await t.request('/api/v2/photos?rover=curiosity&camera=NAVCAM&ROVERS=spirit')
    expect(r.status).toBe(400)
    const p = (await r.json()) as Problem
    expect(p.errors).toEqual([
      { parameter: 'rover', message: 'is not a parameter of this endpoint; did you mean "rovers"?' },
      { parameter: 'camera', message: 'is not a parameter of this endpoint; did you mean "cameras"?' },
      { parameter: 'ROVERS', message: 'is not a parameter of this endpoint; did you mean "rovers"?' },
    ])
    expect(p.detail).toBe('Unknown query parameters: rover, camera, ROVERS. Names are lower-case as documented.')
  })

  test('the derived names are a 400 pointing at the parameter they are the parsed form of', async () => {
    const cases: Record<string, string> = { RoverList: 'rovers', CameraList: 'cameras', PageNumber: 'page', PageSize: 'per_page', SortFields: 'sort', DateMinParsed: 'date_min', FieldSetParsed: 'field_set', ImageSizesList: 'image_sizes' }
    for (const [derived, meant] of Object.entries(cases)) {
      const r = await t.request(`/api/v2/photos?${derived}=1`)
      const p = (await r.json()) as Problem
      expect({ derived, status: r.status, errors: p.errors }).toEqual({ derived, status: 400, errors: [{ parameter: derived, message: `is not a parameter of this endpoint; did you mean "${meant}"?` }] })
    }
    // on the stats route there is no cursor to point at
    const s = (await (await t.request('/api/v2/photos/stats?cursor=abc')).json()) as Problem
    expect(s.errors).toEqual([{ parameter: 'cursor', message: 'is not a parameter of this endpoint' }])
  })

  test('the export takes the list paging names it documents as ignored; any other unknown name is a 400', async () => {
    expect((await t.request('/api/v2/photos/export?format=csv&max_rows=1&page=2&per_page=5&cursor=x')).status).toBe(200)
    const r = await t.request('/api/v2/photos/export?format=csv&max_row=1')
    expect(r.status).toBe(400)
    expect(((await r.json()) as Problem).errors).toEqual([{ parameter: 'max_row', message: 'is not a parameter of this endpoint; did you mean "max_rows"?' }])
  })

  test('a hostile query (thousands of names, long names, control characters) gets a bounded 400', async () => {
    const names = Array.from({ length: 3000 }, (_, i) => `n${i}=1`).join('&')
    const r = await t.request(`/api/v2/photos?${names}&${'x'.repeat(5000)}=1&a%0Ab=1`)
    expect(r.status).toBe(400)
    const p = (await r.json()) as Problem
    expect(p.errors!.length).toBe(10)
    expect(p.detail).toEndWith('(and 2992 more). Names are lower-case as documented.')
    expect(closestName('y'.repeat(10_000), new Set(['rovers']))).toBeUndefined()
    expect(closestName('a\nb', new Set(['ab']))).toBe('ab')
  })

  test('v1 keeps ignoring the names it does not know', async () => {
    const plain = await t.request('/api/v1/rovers/curiosity/photos?sol=1000&page=1')
    const extra = await t.request('/api/v1/rovers/curiosity/photos?sol=1000&page=1&rovers=x&foo=bar&RoverList=a')
    expect(plain.status).toBe(200)
    expect(extra.status).toBe(200)
    expect(((await extra.json()) as { photos: unknown[] }).photos).toEqual(((await plain.json()) as { photos: unknown[] }).photos)
    expect((await t.request('/mars-photos/api/v1/rovers?foo=1')).status).toBe(200)
  })
})

describe('a URL with an unknown name is never answered from the cache or with a 304', () => {
  const VALID = '/api/v2/photos?rovers=spirit&per_page=2'
  test('the ETag of the valid URL, sent with the same URL plus a typo, gets the 400 every time (edge and pipeline), each counted', async () => {
    const ok = await t.request(VALID)
    expect(ok.status).toBe(200)
    const etag = ok.headers.get('etag')!
    expect((await t.request(VALID, { headers: { 'if-none-match': etag } })).status).toBe(304)
    expect((await t.request(VALID, { headers: { 'if-none-match': etag } })).status).toBe(304) // now answered at the edge
    let remaining = Number(ok.headers.get('x-ratelimit-remaining'))
    for (const extra of ['&rover=spirit', '&rover=spirit', '&ROVERS=spirit']) {
      for (const inm of [etag, '*']) {
        const r = await t.request(VALID + extra, { headers: { 'if-none-match': inm } })
        expect({ extra, inm, status: r.status }).toEqual({ extra, inm, status: 400 })
        expect(r.headers.get('etag')).toBeNull()
        const now = Number(r.headers.get('x-ratelimit-remaining'))
        expect(now).toBe(remaining - 1)
        remaining = now
      }
    }
    const head = await t.request(VALID + '&rover=spirit', { method: 'HEAD', headers: { 'if-none-match': etag } })
    expect(head.status).toBe(400)
    // the valid URL is untouched by the refusals
    const again = await t.request(VALID)
    expect(again.status).toBe(200)
    expect(again.headers.get('etag')).toBe(etag)
  })

  test('a batch request with an unknown query name is refused before its body is read', async () => {
    const r = await t.request('/api/v2/photos/batch?field=id', { method: 'POST', headers: { 'content-type': 'application/json' }, body: 'not json at all' })
    expect(r.status).toBe(400)
    expect(((await r.json()) as Problem).errors).toEqual([{ parameter: 'field', message: 'is not a parameter of this endpoint; did you mean "fields"?' }])
  })
})
