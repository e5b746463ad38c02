/**
 * The Curiosity clock fitted on every PDS3 label the index holds (index-builder/normalize/
 * clock-fit.ts, docs/derived-fields.md "Clock fit"): validated leave-one-sol-out, the UTC and
 * the local mean solar time derived from a clock count are within 2 s at the 95th percentile
 * over the labelled sols (the two-point clock was 33–41 s off), and the Mars-time window that
 * used to answer 13 unlabelled Navcam photos at 13:59:4x answers the 3,100 the records give.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { leaveOneSolOut, type ClockLabel } from '../index-builder/normalize/clock-fit'
import { parseMarsTimeMs } from '../index-builder/normalize/date-taken-mars'
import { readSources } from '../index-builder/normalize/normalize-sources'
import { parseImageId } from '../index-builder/normalize/parse-image-id'
import { BUILT_IN_CALIBRATION } from '../index-builder/normalize/sclk-to-utc'
import { makeTestApp, type TestApp } from './setup/test-app'

/** The 13 unlabelled Navcam photos whose same-sol labels put them after 14:00 local time. */
const AFTER_TWO: Array<[string, number]> = [
  ['NLB_485828801EDR_S0481530NCAM00414M_', 995],
  ['NLB_468251477EDR_F0440920NCAM00299M_', 797],
  ['NLB_446146654EDR_F0270968NCAM00271M_', 548],
  ['NLA_408239987EDR_T0050850TRAV00030M_', 121],
  ['NLA_406553273EDR_T0050376TRAV00025M_', 102],
  ['NLA_402380858EDR_F0043416NCAM00441M_', 55],
  ['NLA_402380858EDR_T0043416NCAM00441M_', 55],
  ['NLA_401936992EDR_F0042956NCAM00435M_', 50],
  ['NLA_401936992EDR_T0042956NCAM00435M_', 50],
  ['NLA_401138021EDR_T0041238NCAM00425M_', 41],
  ['NLA_401138021EDR_F0041238NCAM00425M_', 41],
  ['NLA_400871699EDR_F0040404NCAM00421M_', 38],
  ['NLA_400871699EDR_T0040404NCAM00421M_', 38],
]
const WINDOW = 'mars_time_min=12:00:00&mars_time_max=14:00:00&rovers=curiosity&sol_max=995'

const read = await readSources()

let t: TestApp
beforeAll(async () => {
  t = await makeTestApp()
})
afterAll(() => t.close())

async function json(path: string): Promise<any> {
  const res = await t.request(path)
  expect(res.status).toBe(200)
  return res.json()
}

describe('the clock fitted on every label', () => {
  test('leave-one-sol-out over the 2,282 Curiosity labels: UTC and LMST from the clock count within 2 s at p95', () => {
    // The records a PDS3 label made rich state their UTC and LMST (nothing derived into them).
    const labels: ClockLabel[] = read.records
      .filter((r) => r.rover === 'curiosity' && r.source.endsWith('.LBL'))
      .map((r) => ({ sol: r.sol, sclk: parseImageId('curiosity', r.nasa_id).sclk!, utcMs: r.date_taken_utc!, lmstMs: parseMarsTimeMs(r.date_taken_mars!)! }))
    expect(labels.length).toBe(2282)
    const v = leaveOneSolOut('curiosity', labels, BUILT_IN_CALIBRATION.curiosity)!
    expect(v.utc.n).toBe(2282)
    expect(v.utc.p95_abs).toBeLessThanOrEqual(2)
    expect(v.lmst!.p95_abs).toBeLessThanOrEqual(2)
  }, 30_000)

  test('the build reports the leave-one-sol-out errors beside the in-sample ones', () => {
    const e = read.checks.derivationErrors.curiosity!
    expect((e.utc_from_sclk_loso as { p95_abs: number }).p95_abs).toBeLessThanOrEqual(2)
    expect((e.utc_from_sclk as { p95_abs: number }).p95_abs).toBeLessThanOrEqual(2)
    expect((e.lmst_from_sclk as { p95_abs: number }).p95_abs).toBeLessThanOrEqual(2)
  })

  test('the LMST correction of the first and last labelled sols (26, 2304) covers the whole sol: every label\'s in-sample LMST from its clock within 1 s, the worst 7.2 s when the outer halves had none', () => {
    const e = read.checks.derivationErrors.curiosity!.lmst_from_sclk as { n: number; max_abs: number }
    expect(e.n).toBe(2282)
    expect(e.max_abs).toBeLessThanOrEqual(1)
  })

  test(`${WINDOW} answers 3,100 photos, none of the 13 Navcam photos taken after 14:00`, async () => {
    const d = await json(`/api/v2/photos?${WINDOW}&per_page=1`)
    expect(d.meta.total_count).toBe(3100)
    for (const [nasaId, sol] of AFTER_TWO) {
      const p = await json(`/api/v2/photos?rovers=curiosity&sol=${sol}&nasa_id=${nasaId}`)
      expect(p.data.length).toBe(1)
      const time = p.data[0].attributes.date_taken_mars as string
      expect(time.slice(time.indexOf('M') + 1) >= '14:00:00').toBe(true)
    }
  })
})
