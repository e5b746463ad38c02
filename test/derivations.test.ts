/**
 * What the builder derives from the records (docs/derived-fields.md), checked on known cases and
 * against every real record that states the value itself.
 */
import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { readSources } from '../index-builder/normalize/normalize-sources'
import { parseImageId, PERSEVERANCE_ID_FORMS } from '../index-builder/normalize/parse-image-id'
import { seededRandom } from './support/seeded-random'
import { parseUtc, parseUtcByExpression } from '../index-builder/normalize/utc-time'
import { nasaIdFromUrl } from '../index-builder/normalize/nasa-id'
import { marsTimeAt } from '../index-builder/normalize/mars24'
import { lmstMsAt, missionSolAt, MISSION_CLOCK_OFFSET_S } from '../index-builder/normalize/mission-sol'
import { BUILT_IN_CALIBRATION, calibrationFromTimetable, sclkToUtcFor } from '../index-builder/normalize/sclk-to-utc'
import { formatDateTakenMars, parseMarsTimeMs } from '../index-builder/normalize/date-taken-mars'
import { canonicalSampleType } from '../index-builder/normalize/sample-type'
import { mapCamera } from '../index-builder/normalize/camera-map'
import { assignedIdFor, assignIds, ASSIGNED_ID_BASE } from '../index-builder/normalize/assign-ids'
import { DEFAULT_RAW_DIR } from '../index-builder/sources/read-sources'

// The raw/ sources (the incoming ones are measured in derivation-errors.test.ts).
const real = await readSources([DEFAULT_RAW_DIR])
const byNasaId = new Map(real.records.map((r) => [r.nasa_id, r]))
const mruFiles = ['NLF_0670_0726421423_362ECM_N0320604NCAM08111_01_095J01-metadata.json', 'NRF_0731_0731848568_991ECM_N0361610NCAM12731_04_195J01-metadata.json']
const mru = mruFiles.map((f) => JSON.parse(readFileSync(path.join(DEFAULT_RAW_DIR, 'MarsRaw__mars-raw-utils', f), 'utf8')))
const utcOf = (naive: string) => Date.parse(`${naive}Z`)
/** Signed difference of two times of day in seconds, wrapped to ±12 h. */
const dayDiff = (a: number, b: number) => ((((a - b) / 1000 + 43200) % 86400) + 86400) % 86400 - 43200

/** Stated errors (docs/derived-fields.md). */
const LMST_ERROR_S = 10 // Mars24 LMST vs the missions' own LMST, from the same UTC
const M2020_INTERP_ERROR_S = 1 // SCLK→UTC inside the calibrated span
const M2020_EXTRAP_ERROR_S = 10 // … extrapolated 2.6 years
const SUBSECOND_SCLK_ERROR_S = 2.5 // a record's own sclk field vs the file-name SCLK the calibration uses

describe('image id anatomy (SOURCES.md §4.5)', () => {
  test('Curiosity sol 1000 FLB_486265257EDR_F0481570FHAZ00323M_ gives SCLK 486265257, site 48, drive 1570, Full', () => {
    expect(parseImageId('curiosity', 'FLB_486265257EDR_F0481570FHAZ00323M_')).toEqual({ sclk: 486265257, site: 48, drive: 1570, sample_type: 'Full', sample_code: 'F' })
    const r = byNasaId.get('FLB_486265257EDR_F0481570FHAZ00323M_')!
    expect([r.sol, r.site, r.drive, r.sclk, r.sample_type]).toEqual([1000, 48, 1570, 486265257, 'Full'])
  })

  test('the sol-1000 site/drive is the waypoint table entry for sol 997 (site 48, drive 1570)', () => {
    const w = real.waypoints.find((x) => x.rover === 'curiosity' && x.site === 48 && x.drive === 1570)!
    expect(w.sol).toBe(997)
  })

  test('Curiosity sol 3027 …F0860978… gives site 86, drive 978, the waypoint of sol 3027', () => {
    const r = real.records.find((x) => x.rover === 'curiosity' && x.sol === 3027 && x.nasa_id.includes('F0860978'))!
    expect([r.site, r.drive]).toEqual([86, 978])
    const w = real.waypoints.find((x) => x.rover === 'curiosity' && x.site === 86 && x.drive === 978)!
    expect(w.sol).toBe(3027)
  })

  test('Perseverance NLF_0100_0675828717_276ECM_N0040218NCAM00503_01_295J gives sol 100, SCLK 675828717, site 4, drive 218', () => {
    expect(parseImageId('perseverance', 'NLF_0100_0675828717_276ECM_N0040218NCAM00503_01_295J')).toEqual({ sol: 100, sclk: 675828717, site: 4, drive: 218 })
  })

  test('the site, drive and sol in the rich records\' ids equal the values the records state', () => {
    for (const m of mru) {
      const id = parseImageId('perseverance', m.imageid)
      expect([id.sol, id.site, id.drive]).toEqual([m.sol, m.site, m.drive])
    }
  })

  test('sampling letters: Curiosity S/D/T and PRC, MER EFF/ESF/EDN/ETH; MSSS and Perseverance ids give none', () => {
    expect(parseImageId('curiosity', 'NRB_670586006EDR_S0871444NCAM00546M_').sample_type).toBe('Subframe')
    expect(parseImageId('curiosity', 'FRA_397502305EDR_D0010000AUT_04096M_').sample_type).toBe('Downsampled')
    expect(parseImageId('curiosity', 'CR0_813038955PRC_F1191344CCAM03681L1').sample_type).toBe('ChemCam PRC')
    expect(parseImageId('curiosity', '3728MH0001730011303550C00_DXXX')).toEqual({ sol: 3728 })
    expect(parseImageId('opportunity', '1P128287181EFF0000P2303L2M1').sample_type).toBe('Full')
    expect(parseImageId('spirit', '2N126468064ESF0000P1001L0M1').sample_type).toBe('Subframe')
    expect(parseImageId('spirit', '2N126468064EDN0000P1001L0M1').sample_type).toBe('Downsampled')
    expect(parseImageId('opportunity', '1N216958451ETH76ZFP1950L0M1')).toEqual({ sclk: 216958451, sample_type: 'Thumbnail', sample_code: 'ETH' })
    expect(parseImageId('perseverance', 'NLM_1282_0780758045_972ECM_N0600390NCAM00523_00_2I4J').sample_type).toBeUndefined()
  })

  test('the sol written in every Perseverance and MSSS id equals the record\'s sol (the URL\'s for CSV rows)', () => {
    expect(real.checks.idSolMismatches).toEqual([])
    const withSol = real.records.filter((r) => parseImageId(r.rover, r.nasa_id).sol !== undefined)
    expect(withSol.length).toBe(6017 + 4829)
    for (const r of withSol) expect(parseImageId(r.rover, r.nasa_id).sol).toBe(r.sol)
  })

  test('a Perseverance id read by position gives what its regular expressions give: every id of the sources, and each of them with one character changed, cut or extended', () => {
    const { M2020, M2020_NO_RMC } = PERSEVERANCE_ID_FORMS
    const byRegex = (id: string) => {
      const m = M2020.exec(id)
      if (m) return { sol: Number(m[1]), sclk: Number(m[2]), site: Number(m[3]), drive: Number(m[4]) }
      const n = M2020_NO_RMC.exec(id)
      return n ? { sol: Number(n[1]), sclk: Number(n[2]) } : {}
    }
    const ids = [...new Set(real.records.map((r) => r.nasa_id))]
    const random = seededRandom(20261129)
    const swaps = ['0', '9', 'A', 'Z', 'a', '_', '-', ' ', '\u0660', '\uff10', '/']
    let full = 0
    let prefixOnly = 0
    for (const id of ids) {
      const variants = [id, id.slice(0, 19), id.slice(0, 20), id.slice(0, 34), id.slice(0, 35), `${id}X`, `X${id}`]
      for (let k = 0; k < 8; k++) {
        const at = Math.floor(random() * Math.min(id.length, 40))
        variants.push(id.slice(0, at) + swaps[Math.floor(random() * swaps.length)] + id.slice(at + 1))
      }
      for (const v of variants) {
        const want = byRegex(v)
        expect(parseImageId('perseverance', v)).toEqual(want)
        if ('site' in want) full++
        else if ('sol' in want) prefixOnly++
      }
    }
    // Both forms met, and ids of neither.
    expect(full).toBeGreaterThan(1000)
    expect(prefixOnly).toBeGreaterThan(100)
  })

  test('MER site/drive codes are not decoded: no MER record has site or drive', () => {
    expect(real.records.filter((r) => (r.rover === 'spirit' || r.rover === 'opportunity') && (r.site !== undefined || r.drive !== undefined))).toEqual([])
  })

  test('the NASA image id from a URL: the rich records\' link gives their imageid; size suffixes, versions, -BR and extensions go', () => {
    for (const m of mru) expect(nasaIdFromUrl(m.link)).toEqual({ nasaId: m.imageid, version: 1 })
    expect(nasaIdFromUrl('https://mars.nasa.gov/mars2020-raw-images/pub/ods/surface/sol/00394/ids/edr/browse/ncam/NLF_0394_0701921329_862ECM_N0170000NCAM02394_01_185J01_1200.jpg').nasaId).toBe('NLF_0394_0701921329_862ECM_N0170000NCAM02394_01_185J')
    expect(nasaIdFromUrl('https://x/FLR_0000_0666952977_663ECM_N0010044AUT_04096_00_2I3J03_320.jpg')).toEqual({ nasaId: 'FLR_0000_0666952977_663ECM_N0010044AUT_04096_00_2I3J', version: 3 })
    expect(nasaIdFromUrl('http://mars.nasa.gov/mer/gallery/all/1/f/001/1F128285236EDN0000P1001L0M1-BR.JPG').nasaId).toBe('1F128285236EDN0000P1001L0M1')
    expect(nasaIdFromUrl('https://mars.nasa.gov/msl-raw-images/msss/03728/mhli/3728MH0001730011303550C00_DXXX.jpg').nasaId).toBe('3728MH0001730011303550C00_DXXX')
    expect(nasaIdFromUrl('http://x/FLB_486265257EDR_F0481570FHAZ00323M_.JPG').nasaId).toBe('FLB_486265257EDR_F0481570FHAZ00323M_')
  })
})

describe('UTC times as the feeds write them', () => {
  test('a UTC time read by position gives what the expression gives: generated times of every form the feeds write, impossible dates, rolled-over hours, and each with one character changed, cut or padded', () => {
    const random = seededRandom(4242)
    const pick = <T,>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!
    const two = (n: number) => String(n).padStart(2, '0')
    const swaps = ['0', '9', '-', ':', 'T', ' ', 'Z', '.', 'z', '+', '\u0660', 'a']
    let valid = 0
    for (let i = 0; i < 20_000; i++) {
      const y = pick([1999, 2004, 2012, 2020, 2021, 2024, 2100, 50, 0])
      const base = `${String(y).padStart(4, '0')}-${two(1 + Math.floor(random() * 13))}-${two(1 + Math.floor(random() * 31))}${pick(['T', ' '])}${two(Math.floor(random() * 26))}:${two(Math.floor(random() * 61))}:${two(Math.floor(random() * 61))}`
      const frac = pick(['', '', `.${String(Math.floor(random() * 1000)).padStart(3, '0')}`, '.5', '.12', '.1234', '.123456789'])
      const t = base + frac + pick(['', 'Z', 'Z', '+01:00', '-0530'])
      const at = Math.floor(random() * t.length)
      for (const v of [t, t.slice(0, at) + pick(swaps) + t.slice(at + 1), t.slice(0, at), ` ${t}`, `${t} `, `${t}Z`]) {
        const want = parseUtcByExpression(v)
        expect([v, parseUtc(v)]).toEqual([v, want])
        if (want !== undefined) valid++
      }
    }
    for (const ms of ['000', '001', '009', '010', '070', '290', '570', '999']) expect(parseUtc(`2021-02-18T20:55:00.${ms}Z`)).toBe(parseUtcByExpression(`2021-02-18T20:55:00.${ms}Z`))
    expect(valid).toBeGreaterThan(20_000)
  })
})

describe('SCLK → UTC', () => {
  const toUtc = sclkToUtcFor(BUILT_IN_CALIBRATION.perseverance)

  test('Perseverance: each calibration point predicted from the others within the stated error (leave one out)', () => {
    const pts = BUILT_IN_CALIBRATION.perseverance!.points
    const loo = pts.map((p, i) => (sclkToUtcFor({ extrapolate: true, points: pts.filter((_, j) => j !== i) })(p.sclk)! - p.utcMs) / 1000)
    expect(Math.abs(loo[1]!)).toBeLessThanOrEqual(M2020_INTERP_ERROR_S) // interpolated between sol 670 and 1646
    expect(Math.abs(loo[0]!)).toBeLessThanOrEqual(M2020_INTERP_ERROR_S) // 63 days of extrapolation
    expect(Math.abs(loo[2]!)).toBeLessThanOrEqual(M2020_EXTRAP_ERROR_S) // 2.6 years of extrapolation
  })

  test('the rich records\' own sclk gives their date_taken_utc within the stated error', () => {
    for (const m of mru) {
      const err = (toUtc(m.sclk)! - utcOf(m.date_taken_utc)) / 1000
      expect(Math.abs(err)).toBeLessThanOrEqual(SUBSECOND_SCLK_ERROR_S)
    }
  })

  test('MER: a timetable row predicted from its neighbours is within 1 s for the median row', () => {
    for (const rover of ['spirit', 'opportunity']) {
      const rows = real.timetables.filter((t) => t.rover === rover)
      const errs: number[] = []
      for (let i = 1; i < rows.length - 1; i++) errs.push(Math.abs(sclkToUtcFor(calibrationFromTimetable([rows[i - 1]!, rows[i + 1]!]))(rows[i]!.sclk)! - rows[i]!.utc_ms) / 1000)
      errs.sort((a, b) => a - b)
      expect(errs[errs.length >> 1]!).toBeLessThanOrEqual(1)
      expect(errs[Math.floor(errs.length * 0.99)]!).toBeLessThanOrEqual(10.5)
    }
  })

  test('every photo whose UTC was derived from SCLK falls on its own sol by the Mars24 clock', () => {
    const derived = real.records.filter((r) => r.date_taken_utc !== undefined && !r.source.includes('MarsRaw'))
    expect(derived.length).toBe(6446) // engineering-camera, Perseverance and MER ids carry an SCLK; MSSS ids do not
    expect(real.checks.clockSolMismatches).toEqual([])
    for (const r of derived) expect(missionSolAt(r.rover, r.date_taken_utc!)).toBe(r.sol)
  })

  test('MSSS ids carry no SCLK: their photos have no derived time', () => {
    const msss = real.records.filter((r) => r.rover === 'curiosity' && /^\d{4}M[LRHD]/.test(r.nasa_id))
    expect(msss.length).toBeGreaterThan(0)
    for (const r of msss) expect([r.sclk, r.date_taken_utc, r.date_taken_mars]).toEqual([undefined, undefined, undefined])
  })
})

describe('Mars time (Mars24)', () => {
  test('Mars24 reproduces the worked example of the GISS algorithm page (2000-01-06 00:00 UTC)', () => {
    const t = marsTimeAt(Date.UTC(2000, 0, 6), 0)
    expect(t.msd).toBeCloseTo(44795.9998, 4)
    expect(t.mst).toBeCloseTo(23 + 59 / 60 + 39 / 3600, 3) // 23:59:39
    expect(t.ls).toBeCloseTo(277.18758, 4)
  })

  test('LMST from the rich records\' date_taken_utc agrees with their verbatim date_taken_mars within the stated error', () => {
    for (const m of mru) {
      const derived = lmstMsAt('perseverance', utcOf(m.date_taken_utc))
      expect(Math.abs(dayDiff(derived, parseMarsTimeMs(m.date_taken_mars)!))).toBeLessThanOrEqual(LMST_ERROR_S)
      expect(missionSolAt('perseverance', utcOf(m.date_taken_utc))).toBe(m.sol)
    }
  })

  test('the rich records keep their verbatim date_taken_mars, parsed into mars_time_ms', () => {
    const r = byNasaId.get(mru[1].imageid)!
    expect(r.date_taken_mars).toBe('Sol-00731M16:16:40.653')
    expect(r.mars_time_ms).toBe(((16 * 60 + 16) * 60 + 40) * 1000 + 653)
  })

  test('the raw-feed examples of SOURCES.md §4 (Perseverance sol 1646, Curiosity sol 4681) agree within the stated error', () => {
    const p = lmstMsAt('perseverance', Date.parse('2025-10-07T02:08:38Z'))
    expect(Math.abs(dayDiff(p, parseMarsTimeMs('Sol-01646M15:18:15')!))).toBeLessThanOrEqual(LMST_ERROR_S + 1) // verbatim has no fraction
    const c = lmstMsAt('curiosity', Date.parse('2025-10-06T17:16:46Z'))
    expect(Math.abs(dayDiff(c, parseMarsTimeMs('Sol-04681M10:40:32.355')!))).toBeLessThanOrEqual(LMST_ERROR_S)
    expect(missionSolAt('perseverance', Date.parse('2025-10-07T02:08:38Z'))).toBe(1646)
    expect(missionSolAt('curiosity', Date.parse('2025-10-06T17:16:46Z'))).toBe(4681)
  })

  test('derived date_taken_mars is "Sol-NNNNNMhh:mm:ss.fff" with the record\'s sol and mars_time_ms its time of day', () => {
    const r = byNasaId.get('FLB_486265257EDR_F0481570FHAZ00323M_')!
    expect(r.date_taken_mars).toMatch(/^Sol-01000M\d{2}:\d{2}:\d{2}\.\d{3}$/)
    expect(parseMarsTimeMs(r.date_taken_mars!)).toBe(r.mars_time_ms!)
    expect(r.mars_time_ms).toBe(lmstMsAt('curiosity', r.date_taken_utc!))
    expect(formatDateTakenMars(7, 86399999)).toBe('Sol-00007M23:59:59.999')
  })

  test('MER: the timetables\' Hybrid Local Solar Time is Mars24 LMST minus a fixed offset on every sol (±3 s)', () => {
    for (const rover of ['spirit', 'opportunity'] as const) {
      for (const t of real.timetables.filter((x) => x.rover === rover)) {
        const lmst = lmstMsAt(rover, t.utc_ms)
        expect(Math.abs(dayDiff(t.hlst_ms, lmst) - MISSION_CLOCK_OFFSET_S[rover])).toBeLessThanOrEqual(3)
        expect(missionSolAt(rover, t.utc_ms)).toBe(t.sol)
      }
    }
  })
})

describe('earth dates', () => {
  test('every photo of a rover with a v1 manifest has the manifest\'s earth_date for its sol', () => {
    const manifestDate = new Map(real.manifests.flatMap((m) => m.sols.map((s) => [`${m.rover}/${s.sol}`, s.earth_date] as const)))
    const checked = real.records.filter((r) => r.rover !== 'perseverance')
    expect(checked.length).toBe(5260)
    for (const r of checked) expect(r.earth_date).toBe(manifestDate.get(`${r.rover}/${r.sol}`)!)
    expect(real.checks.earthDateVsManifest).toMatchObject({ compared: 5260, agree: 5260, disagreements: [], solNotInManifest: 0 })
  })

  test('raw-feed and mru records get the UTC date of date_taken_utc', () => {
    for (const m of mru) expect(byNasaId.get(m.imageid)!.earth_date).toBe(m.date_taken_utc.slice(0, 10))
  })

  test('Curiosity v1 earth dates are the UTC capture dates; the MER v1 ones are a day later (reported, kept)', () => {
    expect(real.checks.capturedDateVsManifest).toEqual({ compared: 431, agree: 259, dayDifferences: { '0': 259, '-1': 172 } })
  })
})

describe('normalisation tables', () => {
  test('feed instruments map to catalogue cameras; unmappable ones map to nothing', () => {
    expect(mapCamera('curiosity', 'NAV_LEFT_B')).toBe('NAVCAM')
    expect(mapCamera('curiosity', 'MAST_LEFT')).toBe('MAST')
    expect(mapCamera('curiosity', 'CHEMCAM_RMI')).toBe('CHEMCAM')
    expect(mapCamera('curiosity', 'FHAZ_RIGHT_B')).toBe('FHAZ')
    expect(mapCamera('curiosity', 'RHAZ_LEFT_A')).toBe('RHAZ')
    expect(mapCamera('curiosity', 'MAHLI')).toBe('MAHLI')
    expect(mapCamera('perseverance', 'FRONT_HAZCAM_LEFT_A')).toBe('FRONT_HAZCAM_LEFT_A')
    expect(mapCamera('perseverance', 'HELI_NAV')).toBeUndefined()
    expect(mapCamera('perseverance', 'PIXL_MCC')).toBeUndefined()
    expect(mapCamera('perseverance', 'NAV_LEFT_B')).toBeUndefined()
    expect(mapCamera('spirit', 'PANCAM')).toBe('PANCAM')
  })

  test('sample types are canonicalised to one capitalised spelling', () => {
    const cases: Record<string, string | undefined> = { full: 'Full', Full: 'Full', ' subframe ': 'Subframe', thumbnail: 'Thumbnail', downsampled: 'Downsampled', mixed: 'Mixed', 'chemcam prc': 'ChemCam PRC', 'Chemcam  PRC': 'ChemCam PRC', 'some new TYPE': 'Some new type', unknown: undefined, '': undefined }
    for (const [k, v] of Object.entries(cases)) expect(canonicalSampleType(k)).toBe(v)
  })

  test('assigned ids: 2^30 + FNV-1a mod 2^30, and a taken slot is resolved by probing upward', () => {
    expect(assignedIdFor('a')).toBe(ASSIGNED_ID_BASE + (0xe40c292c % ASSIGNED_ID_BASE))
    const recs: Array<{ id?: number; nasa_id: string }> = [{ nasa_id: 'B' }, { id: assignedIdFor('B'), nasa_id: 'A' }, { nasa_id: 'C' }]
    assignIds(recs)
    expect(recs[0]!.id).toBe(assignedIdFor('B') + 1)
    expect(recs[2]!.id).toBe(assignedIdFor('C'))
  })
})
