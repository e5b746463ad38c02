/**
 * Panorama detection on the real records (behaviour.md §15.2; decisions.md, Panoramas): the
 * sequences are recomputed here straight from the source files — the Perseverance feed's stated
 * site, drive, mastAz/mastEl and sclk, the Curiosity PDS3 labels' ROVER_MOTION_COUNTER,
 * rover-frame INSTRUMENT_AZIMUTH/ELEVATION and SPACECRAFT_CLOCK_START_COUNT — with the §15.2
 * rules, and the served list must hold exactly those panoramas, each resolving by id. Every
 * candidate sequence that is not a panorama is accounted for by the rule that keeps it out.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { makeTestApp, testStore, type TestApp } from './setup/test-app'
import { plainPhotos } from './support/brute-force'
import { CURIOSITY_VO, rssFeedRecords } from './support/incoming-photos'
import { splitProductVersion } from '../src/catalog/nasa-id-form'

interface Cand { rover: string; sol: number; site: number; drive: number; camera: string; sclk: number; az: number; el: number; nasa_id: string }

const RULES = { maxElevationDelta: 15, maxClockGap: 300, minPhotos: 3, minCoverage: 30, minUnique: 3 } // §15.2
const EPS = 1e-4

function feedCandidates(): Cand[] {
  const out: Cand[] = []
  for (const r of rssFeedRecords()) {
    const e = r.extended
    if ([e.mastAz, e.mastEl, e.sclk].includes('UNK')) continue
    out.push({ rover: 'perseverance', sol: r.sol, site: r.site, drive: Number(r.drive), camera: r.camera.instrument, sclk: Number(e.sclk), az: Number(e.mastAz), el: Number(e.mastEl), nasa_id: splitProductVersion(r.imageid).id })
  }
  return out
}

function labelCandidates(): Cand[] {
  const dir = mkdtempSync(join(tmpdir(), 'real-panos-'))
  try {
    const r = Bun.spawnSync(['tar', '-xzf', CURIOSITY_VO, '-C', dir])
    if (r.exitCode !== 0) throw new Error(r.stderr.toString())
    const out: Cand[] = []
    for (const sol of readdirSync(join(dir, 'curiosityvo'))) {
      for (const f of readdirSync(join(dir, 'curiosityvo', sol)).filter((n) => n.endsWith('.LBL'))) {
        const t = readFileSync(join(dir, 'curiosityvo', sol, f), 'latin1')
        const num = (re: RegExp, s = t) => Number(re.exec(s)![1])
        const rmc = /\nROVER_MOTION_COUNTER\s*=\s*\((\d+),(\d+),/.exec(t)!
        const geo = /GROUP\s*=\s*ROVER_DERIVED_GEOMETRY_PARMS([\s\S]*?)END_GROUP/.exec(t)![1]!
        out.push({
          rover: 'curiosity',
          sol: num(/PLANET_DAY_NUMBER\s*=\s*(\d+)/),
          site: Number(rmc[1]),
          drive: Number(rmc[2]),
          camera: 'NAVCAM',
          sclk: num(/SPACECRAFT_CLOCK_START_COUNT\s*=\s*"([\d.]+)"/),
          az: num(/INSTRUMENT_AZIMUTH\s*=\s*([-\d.]+)/, geo),
          el: num(/INSTRUMENT_ELEVATION\s*=\s*([-\d.]+)/, geo),
          nasa_id: f.replace(/1\.LBL$/, '_'),
        })
      }
    }
    return out
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Smallest arc holding every azimuth (coverage on the circle). */
function arc(az: number[]): number {
  const n = az.map((a) => ((a % 360) + 360) % 360)
  return Math.min(...n.map((s) => Math.max(...n.map((a) => (a - s + 360) % 360))))
}

interface Sequence { key: string; photos: Cand[]; closedBy: string; verdict: 'panorama' | string }

function sequences(cands: Cand[]): Sequence[] {
  const groups = new Map<string, Cand[]>()
  for (const c of cands) {
    const k = `${c.rover}/${c.sol}/${c.site}/${c.drive}/${c.camera}`
    groups.set(k, [...(groups.get(k) ?? []), c])
  }
  const out: Sequence[] = []
  for (const [key, g] of groups) {
    g.sort((a, b) => a.sclk - b.sclk || a.el - b.el)
    let start = 0
    for (let i = 1; i <= g.length; i++) {
      let closedBy = 'end of group'
      if (i < g.length) {
        const gap = g[i]!.sclk - g[i - 1]!.sclk
        const dEl = Math.abs(g[i]!.el - g[start]!.el)
        if (dEl <= RULES.maxElevationDelta + EPS && gap >= 0 && gap <= RULES.maxClockGap + EPS) continue
        closedBy = dEl > RULES.maxElevationDelta + EPS ? 'elevation step > 15°' : 'clock gap > 300 s'
      }
      const photos = g.slice(start, i)
      const unique = new Set(photos.map((p) => Math.round(((p.az % 360) + 360) % 360) % 360)).size
      const verdict =
        photos.length < RULES.minPhotos ? 'fewer than 3 photos'
        : arc(photos.map((p) => p.az)) < RULES.minCoverage - EPS ? 'azimuth coverage < 30°'
        : unique < RULES.minUnique ? 'fewer than 3 unique whole-degree azimuths'
        : 'panorama'
      out.push({ key, photos, closedBy, verdict })
      start = i
    }
  }
  return out
}

let t: TestApp
let seqs: Sequence[]
let served: any[]
let nasaOf: Map<number, string>
beforeAll(async () => {
  t = await makeTestApp()
  nasaOf = new Map(plainPhotos(await testStore()).map((p) => [p.id, p.nasa_id]))
  seqs = sequences([...feedCandidates(), ...labelCandidates()])
  served = []
  for (let page = 1; page < 100; page++) {
    const body = (await (await t.request(`/api/v2/panoramas?per_page=100&page=${page}`)).json()) as any
    served.push(...body.data)
    if (!body.links.next) break
  }
}, 60_000)
afterAll(() => t.close())

describe('real panoramas', () => {
  test('the served panoramas are exactly the sequences the §15.2 rules accept on the source files: 17 (Perseverance sol 2: 7, Curiosity VO: 10)', () => {
    const want = seqs.filter((s) => s.verdict === 'panorama').map((s) => s.photos.map((p) => p.nasa_id).sort().join(' ')).sort()
    const got = served.map((p) => p.attributes.photo_ids.map((id: number) => nasaOf.get(id)!).sort().join(' ')).sort()
    expect(got).toEqual(want)
    expect(served.length).toBe(17)
    const per = (rover: string) => served.filter((p) => p.attributes.rover === rover).length
    expect([per('perseverance'), per('curiosity')]).toEqual([7, 10])
  })

  test('every real panorama resolves by id, with its photos in capture order', async () => {
    for (const p of served) {
      const res = await t.request(`/api/v2/panoramas/${p.id}`)
      expect(res.status).toBe(200)
      const body = (await res.json()) as any
      expect(body.data.id).toBe(p.id)
      expect(body.data.attributes.photo_ids).toEqual(p.attributes.photo_ids)
    }
  })

  test('checked by eye: pano_perseverance_2_6 is the left Navcam sweep at about −20°: 4 pointings 72° apart (283°, 355°, 67°, 139°), 3 colour exposures each as full and thumbnail, 5 minutes', async () => {
    const s = seqs.find((x) => x.verdict === 'panorama' && x.key === 'perseverance/2/1/52/NAVCAM_LEFT' && x.photos.length === 24)!
    const pointings = [...new Set(s.photos.map((p) => p.az))]
    expect(pointings).toEqual([283.165, 355.178, 67.209, 139.227])
    expect(arc(s.photos.map((p) => p.az))).toBeCloseTo(216.062, 3) // three 72° steps; with Navcam's ~90° field of view, the full circle
    for (let i = 1; i < s.photos.length; i++) expect(s.photos[i]!.sclk - s.photos[i - 1]!.sclk).toBeLessThanOrEqual(300)
    expect(s.photos[s.photos.length - 1]!.sclk - s.photos[0]!.sclk).toBeLessThan(320)
    const body = (await (await t.request('/api/v2/panoramas/pano_perseverance_2_6')).json()) as any
    expect(body.data.attributes).toMatchObject({ camera: 'NAVCAM_LEFT', total_photos: 24, unique_positions: 4, coverage_degrees: 216.062, location: { site: 1, drive: 52 } })
    // capture order: the same photos, clocks never going back (full and thumbnail share a clock: ordered by id)
    const clock = new Map(s.photos.map((p) => [p.nasa_id, p.sclk]))
    const order = body.data.attributes.photo_ids.map((id: number) => nasaOf.get(id)!)
    expect([...order].sort()).toEqual(s.photos.map((p) => p.nasa_id).sort())
    for (let i = 1; i < order.length; i++) expect(clock.get(order[i])!).toBeGreaterThanOrEqual(clock.get(order[i - 1])!)
  })

  test('every candidate sequence that is not a panorama is kept out by a named §15.2 rule', () => {
    const rejected = seqs.filter((s) => s.verdict !== 'panorama')
    const byRule: Record<string, number> = {}
    for (const s of rejected) byRule[s.verdict] = (byRule[s.verdict] ?? 0) + 1
    expect(Object.keys(byRule).every((k) => ['fewer than 3 photos', 'azimuth coverage < 30°', 'fewer than 3 unique whole-degree azimuths'].includes(k))).toBe(true)
    // sol 2 Navcam sequences of 3+ photos that are not panoramas: repeated frames at one pointing
    const sol2 = rejected.filter((s) => s.key.startsWith('perseverance/2/') && s.photos.length >= 3)
    expect(sol2.length).toBeGreaterThan(0)
    for (const s of sol2) expect(['azimuth coverage < 30°', 'fewer than 3 unique whole-degree azimuths']).toContain(s.verdict)
  })
})
