/**
 * The PDS3 INDEX_TABLE input (index-builder/sources/pds3/): a MER EDR index, label and table
 * written to the PDS3 standard from the rows SOURCES.md §4.3 quotes (test/support/
 * mer-edr-index-fixture.ts), is read through its label into Opportunity photos, built with
 * --only-sources and served by the app; hostile variants (wrong widths, truncated rows, labels
 * that lie, huge values, non-ASCII bytes) are each refused naming the file, or counted under
 * --skip-bad, never a crash.
 */
import { afterAll, describe, expect, test } from 'bun:test'
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { readSources } from '../index-builder/normalize/normalize-sources'
import { mapCamera } from '../index-builder/normalize/camera-map'
import { readSourceFiles, SourceError } from '../index-builder/sources/read-sources'
import { loadStore } from '../src/store/load-store'
import { makeTestApp } from './setup/test-app'
import { MER_EDR_COLUMNS, merEdrIndex, SECTION_4_3_ROWS, writeMerEdrIndex, type FixtureRow } from './support/mer-edr-index-fixture'

const REPO = join(import.meta.dir, '..')
const scratch = mkdtempSync(join(tmpdir(), 'pds-index-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))
let n = 0
const fresh = () => join(scratch, `v${++n}`)

const fixture = merEdrIndex()
// SOURCES.md §4.3: `…/mer1po_0xxx/browse/sol{NNNN}/edr/{file}.img.jpg`, on the PDS Imaging Node's MER volumes.
const browse = (file: string) => `https://planetarydata.jpl.nasa.gov/img/data/mer/opportunity/mer1po_0xxx/browse/sol0001/edr/${file}.jpg`

/** A variant folder: the fixture with its label and/or table edited. */
function variant(edit: { label?: (l: string) => string; table?: (t: string) => string | Uint8Array; rows?: FixtureRow[] } = {}): string {
  const base = edit.rows ? merEdrIndex(edit.rows) : fixture
  return writeMerEdrIndex(fresh(), { label: (edit.label ?? ((l) => l))(base.label), table: (edit.table ?? ((t) => t))(base.table) as never })
}
/** Replaces `key = old` by `key = new` inside the COLUMN object named `column` of a label. */
function editColumn(label: string, column: string, key: string, value: string | number): string {
  const at = label.indexOf(`NAME                     = ${column}\r\n`)
  if (at < 0) throw new Error(`no column ${column}`)
  const end = label.indexOf('END_OBJECT', at)
  const block = label.slice(at, end).replace(new RegExp(`(\\b${key} +=) [^\\r]*`), `$1 ${value}`)
  return label.slice(0, at) + block + label.slice(end)
}
/** The START_BYTE the label states for a column. */
const startOf = (label: string, column: string) => Number(new RegExp(`NAME {21}= ${column}\\r\\n {4}DATA_TYPE {16}= \\w+\\r\\n {4}START_BYTE {15}= (\\d+)`).exec(label)![1])
const rowsOf = (table: string) => table.split('\r\n').slice(0, -1)
const withRow = (i: number, edit: (r: FixtureRow) => FixtureRow) => SECTION_4_3_ROWS.map((r, k) => (k === i ? edit({ ...r }) : r))

/** Outcome of a strict read (the error) and a --skip-bad read (photos kept, what was skipped). */
function outcome(dir: string) {
  let strict: string | undefined
  try {
    readSourceFiles([dir])
  } catch (e) {
    if (!(e instanceof SourceError)) throw e
    strict = e.message
  }
  const lenient = readSourceFiles([dir], { skipBad: true })
  return { strict, photos: lenient.drafts.length, skipped: lenient.skipped.map((s) => `${s.record}: ${s.reason}`), unmapped: lenient.unmapped }
}

describe('a MER EDR index read through its PDS3 label', () => {
  test('the §4.3 rows become three Opportunity PANCAM photos: product id, sol 1, START_TIME, SCLK, LINES × LINE_SAMPLES, site/drive, rover-frame pointing, the browse JPEG, sample type from the product', async () => {
    const dir = writeMerEdrIndex(fresh(), fixture)
    const read = await readSources([dir])
    expect(read.skipped).toEqual([])
    expect(read.sources.map((s) => [s.format, s.records, s.photos])).toEqual([['pds3-index-table', 3, 3]])
    const byId = new Map(read.records.map((r) => [r.nasa_id, r]))
    expect([...byId.keys()].sort()).toEqual(['1P128287181EFF0000P2303L2M1', '1P128287181ERP0000P2303L2M1', '1P128287214EDN0000P2303L5M1'])
    const first = byId.get('1P128287181EFF0000P2303L2M1')!
    expect(first).toMatchObject({
      rover: 'opportunity', camera: 'PANCAM', sol: 1, earth_date: '2004-01-25',
      date_taken_utc: Date.parse('2004-01-25T07:18:28Z'), sclk: 128287181.621, width: 1024, height: 1024, site: 0, drive: 0,
      mast_azimuth: 360 - 173.888, mast_elevation: -1.28028, sample_type: 'Full',
      // The sun as the row states it (local level, from north clockwise): served, not derived.
      sun_elevation: 36.7237, sun_azimuth: 260.595,
      images: { full: browse('1p128287181eff0000p2303l2m1.img') },
    })
    // The sun as NASA states it for the exposure, and the site-frame pointing, stay in raw.
    expect(JSON.parse(first.raw!)).toMatchObject({ SOLAR_AZIMUTH: 260.595, SOLAR_ELEVATION: 36.7237, SITE_INSTRUMENT_AZIMUTH: -173.733, LOCAL_TRUE_SOLAR_TIME: '15:32:30', ROVER_MOTION_COUNTER: [0, 0, 1, 34, 0] })
    // Rows 2 and 3 state no size, pointing or clock: those stay absent (SCLK comes from the product id).
    const third = byId.get('1P128287214EDN0000P2303L5M1')!
    expect([third.date_taken_utc, third.sclk, third.sample_type, third.width, third.site, third.mast_azimuth]).toEqual([Date.parse('2004-01-25T07:19:01Z'), 128287214, 'Downsampled', undefined, undefined, undefined])
    expect(byId.get('1P128287181ERP0000P2303L2M1')!.sample_type).toBeUndefined()
    expect(JSON.parse(third.raw!).SOLAR_AZIMUTH).toBeUndefined()
  })

  test('index rows and the v1 records of the same images (the bundled Opportunity sol 1 holds rows 1 and 3, ids 268001 and 268025) are one photo each: the row\'s stated values with the v1 id', async () => {
    const v1 = '../shared/data/raw/elbi3__Mars-Rover-Photo-Journal/opportunitySol1.json.gz'
    const read = await readSources([writeMerEdrIndex(fresh(), fixture), join(REPO, v1)])
    expect(read.records.length).toBe(95 + 3 - 2)
    const one = read.records.filter((r) => r.nasa_id === '1P128287181EFF0000P2303L2M1')
    expect(one.length).toBe(1)
    expect([one[0]!.id, one[0]!.sclk, one[0]!.width, one[0]!.images.full]).toEqual([268001, 128287181.621, 1024, browse('1p128287181eff0000p2303l2m1.img')])
    expect(read.records.find((r) => r.nasa_id === '1P128287214EDN0000P2303L5M1')!.id).toBe(268025)
    const merged = (nasa_id: string, dropped_id: number) => ({ nasa_id, dropped_source: v1, dropped_id, kept_source: expect.stringContaining('edrindex.lbl') })
    expect(read.merged).toEqual([merged('1P128287181EFF0000P2303L2M1', 268001), merged('1P128287214EDN0000P2303L5M1', 268025)])
  })

  test('MER INSTRUMENT_IDs map to the v1 cameras; the Microscopic Imager maps to none and its rows are counted, not served', () => {
    const cams = ['PANCAM_RIGHT', 'NAVCAM_LEFT', 'FRONT_HAZCAM_RIGHT', 'REAR_HAZCAM_LEFT', 'DESCENT_CAMERA', 'MI'].map((i) => mapCamera('spirit', i))
    expect(cams).toEqual(['PANCAM', 'NAVCAM', 'FHAZ', 'RHAZ', 'ENTRY', undefined])
    const mi = (r: FixtureRow): FixtureRow => ({ ...r, VOLUME_ID: 'mer1mo_0xxx', PATH_NAME: '/mer1mo_0xxx/data/sol0001/edr/', INSTRUMENT_ID: 'MI' })
    const o = outcome(variant({ rows: SECTION_4_3_ROWS.map(mi) }))
    expect([o.strict, o.photos, o.skipped]).toEqual([undefined, 0, []])
    expect(o.unmapped).toEqual([{ rover: 'opportunity', instrument: 'MI', photos: 3 }])
  })

  test('found by content in a folder walk, the table matched to the pointer without regard to case, gzipped or not; a bare .tab is refused', () => {
    const dir = writeMerEdrIndex(fresh(), fixture)
    const walked = readSourceFiles([dir])
    expect([walked.drafts.length, walked.ignored]).toEqual([3, [join(dir, 'edrindex.tab')]])
    const gz = fresh()
    mkdirSync(gz)
    writeFileSync(join(gz, 'EDRINDEX.LBL'), fixture.label)
    writeFileSync(join(gz, 'edrindex.tab.gz'), gzipSync(fixture.table))
    expect(readSourceFiles([gz]).drafts.length).toBe(3)
    expect(() => readSourceFiles([join(dir, 'edrindex.tab')])).toThrow('a PDS3 table is read through its label')
  })
})

describe('build-index --only-sources over the index, served by the app', () => {
  test('publishes the three photos; /api/v2/photos answers them with their browse URLs and raw; /health makes no sample claim without NASA manifests', async () => {
    const out = fresh()
    const r = Bun.spawnSync([process.execPath, join(REPO, 'index-builder/cli.ts'), '--out', out, '--only-sources', writeMerEdrIndex(fresh(), fixture)], { cwd: REPO, stdout: 'pipe', stderr: 'pipe' })
    expect(r.exitCode).toBe(0)
    expect(r.stdout.toString()).toContain('photos 3')
    const t = await makeTestApp({ store: await loadStore(out) })
    try {
      const body: any = await (await t.request('/api/v2/photos?rovers=opportunity&sol=1&cameras=PANCAM&sort=id&field_set=complete')).json()
      expect(body.meta.total_count).toBe(3)
      const byNasa = new Map(body.data.map((p: any) => [p.attributes.nasa_id, p]))
      const first: any = byNasa.get('1P128287181EFF0000P2303L2M1')
      expect(first.attributes.earth_date).toBe('2004-01-25')
      expect(first.attributes.date_taken_utc).toBe('2004-01-25T07:18:28.000Z')
      expect(first.attributes.images.full).toBe(browse('1p128287181eff0000p2303l2m1.img'))
      expect([first.attributes.dimensions, first.attributes.location]).toEqual([{ width: 1024, height: 1024 }, expect.objectContaining({ site: 0, drive: 0 })])
      expect(first.attributes.raw).toMatchObject({ SOLAR_AZIMUTH: 260.595, SOLAR_ELEVATION: 36.7237 })
      const rover = ((await (await t.request('/api/v2/rovers/opportunity')).json()) as any).data.attributes
      expect([rover.total_photos, rover.max_sol, rover.nasa_total_photos, rover.catalogue_share]).toEqual([3, 1, undefined, undefined])
      const health: any = await (await t.anonymous('/health')).json()
      expect([health.index.photos, health.index.sample, health.index.note]).toEqual([3, undefined, undefined])
    } finally {
      await t.close()
    }
  }, 60_000)
})

describe('hostile index files: refused naming the file, or counted under --skip-bad', () => {
  const tab = 'edrindex.tab'
  test('wrong widths: a CHARACTER width that misses its quotes, a numeric START_BYTE that takes in the tab: every row refused, none served', () => {
    const narrow = outcome(variant({ label: (l) => editColumn(l, 'INSTRUMENT_ID', 'BYTES', 16) }))
    expect(narrow.strict).toContain(`${tab}: record row 1: column INSTRUMENT_ID: the quotes around bytes`)
    expect([narrow.photos, narrow.skipped.length]).toEqual([0, 3])
    const shifted = outcome(variant({ label: (l) => editColumn(l, 'LINES', 'START_BYTE', startOf(l, 'LINES') + 1) }))
    expect(shifted.strict).toMatch(/record row 1: column LINES: bytes \d+–\d+ hold a quote or tab/)
    expect(shifted.photos).toBe(0)
  })

  test('truncated rows: a row cut short costs that row only; a table cut in its last row keeps the rows before it', () => {
    const cut = outcome(variant({ table: (t) => rowsOf(t).map((r, i) => (i === 1 ? r.slice(0, 500) : r)).join('\r\n') + '\r\n' }))
    expect(cut.strict).toContain(`${tab}: record row 2: the row is 502 bytes with its line end; the label's ROW_BYTES is ${fixture.rowBytes}`)
    expect([cut.photos, cut.skipped]).toEqual([2, [`row 2: the row is 502 bytes with its line end; the label's ROW_BYTES is ${fixture.rowBytes}`]])
    const eof = outcome(variant({ table: (t) => t.slice(0, t.length - 300) }))
    expect([eof.photos, eof.skipped.length]).toEqual([2, 1])
    expect(eof.skipped[0]).toStartWith('row 3: the row is')
  })

  test('labels that lie about ROWS: rows missing or rows beyond it are one bad entry, the rows read are kept', () => {
    const fewer = outcome(variant({ table: (t) => rowsOf(t).slice(0, 2).join('\r\n') + '\r\n' }))
    expect([fewer.photos, fewer.skipped]).toEqual([2, ['rows: the label states ROWS 3; the table ends after 2']])
    const more = outcome(variant({ label: (l) => l.replace('ROWS                       = 3', 'ROWS                       = 2') }))
    expect([more.photos, more.skipped]).toEqual([2, ["rows: the table holds more than the label's ROWS 2: the rest is not read"]])
  })

  test('labels that lie about the layout or point elsewhere refuse the file before a row is read', () => {
    const lies: Array<[(l: string) => string, string]> = [
      [(l) => l.replace(/RECORD_BYTES {17}= \d+/, 'RECORD_BYTES                 = 900'), `RECORD_BYTES 900 is not the table's ROW_BYTES ${fixture.rowBytes}`],
      [(l) => l.replace('COLUMNS                    = 55', 'COLUMNS                    = 56'), 'COLUMNS says 56, the label holds 55 COLUMN objects'],
      [(l) => editColumn(l, 'LINE_SAMPLES', 'START_BYTE', startOf(l, 'LINES') + 2), 'columns LINES and LINE_SAMPLES overlap'],
      [(l) => editColumn(l, 'PIXEL_AVERAGING_WIDTH', 'START_BYTE', 99_999), `column PIXEL_AVERAGING_WIDTH START_BYTE "99999" is not an integer in [1, ${fixture.rowBytes - 2}]`],
      [(l) => editColumn(l, 'PIXEL_AVERAGING_WIDTH', 'BYTES', 9), `column PIXEL_AVERAGING_WIDTH (START_BYTE ${fixture.rowBytes - 5}, BYTES 9) runs past the row's data`],
      [(l) => editColumn(l, 'FILTER_NAME', 'DATA_TYPE', 'MSB_INTEGER'), 'column FILTER_NAME: DATA_TYPE "MSB_INTEGER" is not an ASCII table type'],
      [(l) => l.replace('"EDRINDEX.TAB"', '"../../../../etc/passwd"'), '^INDEX_TABLE names "../../../../etc/passwd", not a file name beside the label'],
      [(l) => l.replace('"EDRINDEX.TAB"', '"RDRINDEX.TAB"'), '^INDEX_TABLE names RDRINDEX.TAB, which is not beside the label'],
      [(l) => l.replace('^INDEX_TABLE                 = "EDRINDEX.TAB"', '^INDEX_TABLE = 12'), '^INDEX_TABLE points into the label file itself'],
      [(l) => l.replace('INTERCHANGE_FORMAT         = ASCII', 'INTERCHANGE_FORMAT         = BINARY'), 'INTERCHANGE_FORMAT BINARY: only ASCII index tables are read'],
      [(l) => editColumn(l, 'PLANET_DAY_NUMBER', 'NAME', 'SOL'), 'the index has no PLANET_DAY_NUMBER column: not a MER EDR index'],
      [(l) => l.replace('END_OBJECT                   = INDEX_TABLE', ''), 'malformed PDS3 label: line'],
    ]
    for (const [edit, why] of lies) {
      const o = outcome(variant({ label: edit }))
      expect(o.strict).toContain(`edrindex.lbl: ${why}`)
      expect([o.photos, o.skipped.length]).toEqual([0, 1])
      expect(o.skipped[0]).toStartWith('file: ')
    }
  })

  test('rows whose columns contradict each other: another rover than the volume, another sol than the path, a file of another product, a camera of another volume', () => {
    const cases: Array<[FixtureRow, string]> = [
      [{ INSTRUMENT_HOST_ID: 'MER2' }, 'INSTRUMENT_HOST_ID MER2 and volume mer1po_0xxx name different rovers'],
      [{ PLANET_DAY_NUMBER: '2' }, 'PATH_NAME "/mer1po_0xxx/data/sol0001/edr/" is not /mer1po_0xxx/data/sol0002/edr/'],
      [{ FILE_NAME: '1p128287181eff0000p2303r2m1.img' }, 'FILE_NAME 1p128287181eff0000p2303r2m1.img is not the file of PRODUCT_ID 1P128287181EFF0000P2303L2M1'],
      [{ INSTRUMENT_ID: 'NAVCAM_LEFT' }, 'INSTRUMENT_ID NAVCAM_LEFT is not a camera of volume mer1po_0xxx'],
      [{ VOLUME_ID: 'msl_0xxx' }, 'volume "msl_0xxx" is not a MER camera volume'],
    ]
    for (const [change, why] of cases) {
      const o = outcome(variant({ rows: withRow(0, (r) => ({ ...r, ...change })) }))
      expect(o.strict).toContain(`record row 1: ${why}`)
      expect([o.photos, o.skipped.length]).toEqual([2, 1])
    }
  })

  test('huge values: a sol past the mission, a clock past 2^32, an infinite real, a ROWS, ROW_BYTES or ITEMS beyond bounds', () => {
    const sol = outcome(variant({ rows: withRow(0, (r) => ({ ...r, PLANET_DAY_NUMBER: '9999', PATH_NAME: '/mer1po_0xxx/data/sol9999/edr/' })) }))
    expect(sol.strict).toContain('sol 9999 is not an integer in [0, 5111]')
    expect(sol.photos).toBe(2)
    const clock = outcome(variant({ rows: withRow(0, (r) => ({ ...r, SPACECRAFT_CLOCK_START: '99999999999999999999.5' })) }))
    expect(clock.strict).toContain('sclk 100000000000000000000 is not a spacecraft clock count')
    const real = outcome(variant({ rows: withRow(0, (r) => ({ ...r, SOLAR_AZIMUTH: '9e99999' })) }))
    expect(real.strict).toContain('record row 1: column SOLAR_AZIMUTH: "9e99999" is not a finite ASCII_REAL')
    const big: Array<[(l: string) => string, string]> = [
      [(l) => l.replace('ROWS                       = 3', 'ROWS                       = 1000000000000'), 'ROWS "1000000000000" is not an integer in [0, 50000000]'],
      [(l) => l.replace(/ROW_BYTES {18}= \d+/, 'ROW_BYTES                  = 999999999').replace(/RECORD_BYTES {17}= \d+/, 'RECORD_BYTES                 = 999999999'), 'ROW_BYTES "999999999" is not an integer in [3, 65536]'],
      [(l) => editColumn(l, 'ROVER_MOTION_COUNTER', 'ITEMS', 1_000_000), 'column ROVER_MOTION_COUNTER ITEMS "1000000" is not an integer in [1, 64]'],
    ]
    for (const [edit, why] of big) expect(outcome(variant({ label: edit })).strict).toContain(why)
  })

  test('non-ASCII: a Latin-1 byte, UTF-8 bytes or a NUL in a row refuse that row; UTF-8 prose in the label is read, invalid UTF-8 in it refuses the file', () => {
    const replaceInRow0 = (bytes: number[]) => (t: string) => {
      const b = new TextEncoder().encode(t)
      const at = t.indexOf('PANCAM_LEFT ') + 'PANCAM_LEFT'.length
      bytes.forEach((x, i) => (b[at + i] = x))
      return b
    }
    for (const [bytes, hex] of [[[0xe9], '0xe9'], [[0xc3, 0xa9], '0xc3'], [[0x00], '0x00']] as const) {
      const o = outcome(variant({ table: replaceInRow0([...bytes]) }))
      expect(o.strict).toContain(`record row 1: byte ${fixture.table.indexOf('PANCAM_LEFT ') + 12} is ${hex}, not printable ASCII`)
      expect([o.photos, o.skipped.length]).toEqual([2, 1])
    }
    const prose = outcome(variant({ label: (l) => l.replace('"planet day number"', '"sol: jour martien, café à 15 h"') }))
    expect([prose.strict, prose.photos]).toEqual([undefined, 3])
    const dir = variant()
    writeFileSync(join(dir, 'edrindex.lbl'), Buffer.concat([Buffer.from(fixture.label.slice(0, 100)), Buffer.from([0xff, 0xfe]), Buffer.from(fixture.label.slice(100))]))
    expect(outcome(dir).strict).toContain('edrindex.lbl: not valid UTF-8 text')
  })

  test('long runs of digits that fail to be numbers are refused at once (no quadratic backtracking): a 60,000-byte ASCII_REAL value, a 500,000-digit label value', () => {
    const wide = [...MER_EDR_COLUMNS, { name: 'EXTRA_REAL', type: 'ASCII_REAL' as const, bytes: 60_000 }]
    const digits = merEdrIndex(withRow(0, (r) => ({ ...r, EXTRA_REAL: `${'1'.repeat(59_999)}x` })), wide)
    const o = outcome(writeMerEdrIndex(fresh(), digits))
    expect(o.strict).toContain(`record row 1: column EXTRA_REAL: "${'1'.repeat(30)}" is not a finite ASCII_REAL`)
    expect([o.photos, o.skipped.length]).toEqual([2, 1])
    const label = outcome(variant({ label: (l) => l.replace('INDEX_TYPE                 = SINGLE', `INDEX_TYPE                 = ${'7'.repeat(500_000)}x`) }))
    expect([label.strict, label.photos]).toEqual([undefined, 3])
  })

  test('a table that is a link out of the label folder is not read; a 24 MB table without a line end is one bad row and a ROWS entry, read in one pass', () => {
    const outside = join(scratch, 'outside.tab')
    writeFileSync(outside, fixture.table)
    const dir = fresh()
    mkdirSync(dir)
    writeFileSync(join(dir, 'edrindex.lbl'), fixture.label)
    symlinkSync(outside, join(dir, 'edrindex.tab'))
    expect(outcome(dir).strict).toContain("edrindex.tab is a symbolic link out of the label's folder: not read")
    const one = outcome(variant({ table: () => 'x'.repeat(24 << 20) }))
    expect(one.skipped).toEqual([`row 1: the row is ${(24 << 20) + 1} bytes with its line end; the label's ROW_BYTES is ${fixture.rowBytes}`, 'rows: the label states ROWS 3; the table ends after 1'])
  })
})
