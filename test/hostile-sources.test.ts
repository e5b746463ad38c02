/**
 * Source files are untrusted input. Each attack on the builder found with crafted files is
 * refused or bounded: decompression bombs stop at the budget with a clear error and a bounded
 * peak memory (measured in a child process), malformed UTF-8 and oversized values are errors
 * naming the file, every failure under --skip-bad becomes a skipped source naming the file,
 * symbolic links never lead out of the source folders, values that are not what their field says
 * (script URLs, absurd sols and dates, ids in the builder's reserved range) never reach the index,
 * and a build that would publish nothing or far less needs --force. A refused build leaves the
 * served index untouched.
 */
import { afterAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync, openSync, writeSync, closeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { buildIndex } from '../index-builder/build-index'
import { DEFAULT_MAX_FILE_BYTES } from '../index-builder/sources/input-limits'
import { SourceError } from '../index-builder/sources/read-sources'
import { readSources } from '../index-builder/normalize/normalize-sources'
import { parseTable } from '../index-builder/sources/delimited-text'

const REPO = join(import.meta.dir, '..')
const scratch = mkdtempSync(join(tmpdir(), 'hostile-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))
const GiB = 2 ** 30

const v1 = (id: number, over: Record<string, unknown> = {}) => ({
  id,
  sol: 1,
  camera: { name: 'FHAZ' },
  img_src: 'http://mars.jpl.nasa.gov/msl-raw-images/proj/msl/redops/ods/surface/sol/00001/opgs/edr/fcam/FLB_397586934EDR_F0010008AUT_04096M_.JPG',
  earth_date: '2012-08-07',
  rover: { name: 'Curiosity' },
  ...over,
})
const m2020 = (over: Record<string, unknown> = {}) => ({
  imageid: 'NLF_0100_0675828717_276ECM_N0040218NCAM00503_01_295J',
  sol: 100,
  sample_type: 'Full',
  date_taken_utc: '2021-05-30T03:12:00',
  date_taken_mars: 'Sol-00100M10:00:00.000',
  camera: { instrument: 'NAVCAM_LEFT' },
  image_files: { large: 'https://mars.nasa.gov/mars2020-raw-images/pub/ods/surface/sol/00100/ids/edr/browse/ncam/NLF_0100_0675828717_276ECM_N0040218NCAM00503_01_295J01_1200.jpg' },
  extended: { sclk: '675828717.1' },
  ...over,
})
function file(name: string, content: string | Uint8Array): string {
  const p = join(scratch, name)
  mkdirSync(join(p, '..'), { recursive: true })
  writeFileSync(p, content)
  return p
}
/** One build in a child process: its outcome and peak RSS. */
function measuredBuild(out: string, ...args: string[]): { ok: boolean; error?: string; photos?: number; peakRssBytes: number } {
  const r = Bun.spawnSync([process.execPath, join(REPO, 'test/support/measured-build.ts'), out, ...args], { cwd: REPO, stdout: 'pipe', stderr: 'pipe' })
  if (r.exitCode !== 0) throw new Error(`measured build crashed (${r.exitCode}): ${r.stderr.toString()}`)
  return JSON.parse(r.stdout.toString())
}
function cli(...args: string[]) {
  const r = Bun.spawnSync([process.execPath, join(REPO, 'index-builder/cli.ts'), ...args], { cwd: REPO, stdout: 'pipe', stderr: 'pipe' })
  return { code: r.exitCode, stdout: r.stdout.toString(), stderr: r.stderr.toString() }
}

describe('decompression bombs and oversized values', () => {
  test('a 3 MB .json.gz expanding to 3 GB stops at the budget with "exceeds N bytes", peak RSS under 1 GB', () => {
    const p = join(scratch, 'bomb.json.gz')
    const member = gzipSync(Buffer.alloc(1 << 20, 97)) // gzip members concatenate (RFC 1952 §2.2)
    const fd = openSync(p, 'w')
    writeSync(fd, gzipSync('{"photos":[{"img_src":"'))
    for (let i = 0; i < 3000; i++) writeSync(fd, member)
    closeSync(fd)
    const r = measuredBuild(join(scratch, 'bomb-out'), p)
    expect(r.ok).toBe(false)
    expect(r.error).toBe(`${p}: decompressed size exceeds ${DEFAULT_MAX_FILE_BYTES} bytes (BUILD_MAX_FILE_BYTES)`)
    expect(r.peakRssBytes).toBeLessThan(GiB)
    expect(existsSync(join(scratch, 'bomb-out', 'current'))).toBe(false)
  }, 30_000)

  test('120 records with 10 MB img_src (1.2 GB of JSON) are refused at the budget, peak RSS under 1 GB', () => {
    const member = gzipSync(Buffer.alloc(10 << 20, 97), { level: 1 })
    const parts: Uint8Array[] = [gzipSync('{"photos":[')]
    for (let i = 0; i < 120; i++) parts.push(gzipSync(`${i ? ',' : ''}{"id":${i + 1},"img_src":"http://x/`), member, gzipSync('"}'))
    parts.push(gzipSync(']}'))
    const p = file('tall-records.json.gz', Buffer.concat(parts))
    const r = measuredBuild(join(scratch, 'tall-out'), p)
    expect(r.ok).toBe(false)
    expect(r.error).toBe(`${p}: decompressed size exceeds ${DEFAULT_MAX_FILE_BYTES} bytes (BUILD_MAX_FILE_BYTES)`)
    expect(r.peakRssBytes).toBeLessThan(GiB)
    // skipped under --skip-bad, which leaves nothing to publish
    expect(measuredBuild(join(scratch, 'tall-out'), '--skip-bad', p).error).toContain('not published: the build holds 0 photos')
  }, 30_000)

  test('10 records with 10 MB img_src inside the budget: the file is refused for its 10 MB strings before parsing, peak RSS under 1 GB', () => {
    const photos: unknown[] = [v1(990001)]
    for (let i = 0; i < 10; i++) photos.push(v1(990002 + i, { img_src: `http://mars.jpl.nasa.gov/${'a'.repeat(10 << 20)}${i}.JPG` }))
    const p = file('long-urls.json.gz', gzipSync(JSON.stringify({ photos }), { level: 1 }))
    const r = measuredBuild(join(scratch, 'long-out'), '--skip-bad', '--force', p)
    expect(r.ok).toBe(true)
    expect(r.photos).toBe(0)
    expect(r.peakRssBytes).toBeLessThan(GiB)
    const strict = measuredBuild(join(scratch, 'long-out-strict'), p)
    expect(strict.error).toMatch(/long-urls\.json\.gz: holds a JSON string of 1048\d{4} characters \(at most 65536\)/)
  }, 30_000)

  test('a URL, title or record over its own cap is a record error; the good records stay', async () => {
    const p = file('caps/caps.json', JSON.stringify({ images: [m2020(), m2020({ imageid: 'NLF_0100_0675828718_276ECM_N0040218NCAM00503_01_295J', title: 't'.repeat(600) })] }))
    const r = await readSources([p], { skipBad: true })
    expect(r.records.length).toBe(1)
    expect(r.skipped).toEqual([{ file: p, record: '"NLF_0100_0675828718_276ECM_N0040218NCAM00503_01_295J"', reason: 'title is 600 characters (at most 512)' }])
  })

  test('bytes that are not UTF-8 are an error naming the file, never replaced by U+FFFD', async () => {
    const p = file('latin1.json', Buffer.concat([Buffer.from('{"photos":[{"img_src":"http://x/caf'), Buffer.from([0xe9]), Buffer.from('.JPG"}]}')]))
    const err = await readSources([p]).catch((e) => e)
    expect(err).toBeInstanceOf(SourceError)
    expect(err.message).toBe(`${p}: not valid UTF-8 text`)
  })
})

describe('every failure is a source error naming the file (and --skip-bad skips it)', () => {
  test('800,000 table rows in one file read without overflowing the stack', async () => {
    const rows = ['latitude\tlongitude\taltitude\tgeometry\trmcSite\trmcDrive\trmcPose\tfirstSol\tlastSol\txCorrected\tyCorrected']
    for (let i = 0; i < 800_000; i++) rows.push(`-14.5\t175.4\t\tPoint\t${i % 900}\t${i}\t0\t1\t1\t1\t1`)
    const p = file('big/drives.tsv', rows.join('\n'))
    const r = await readSources([p])
    expect(r.sources[0]).toMatchObject({ format: 'mer-rmc-table', records: 800_000 })
    expect(r.waypoints.length).toBeGreaterThan(700_000)
  }, 30_000)

  test('JSON nested 100,000 deep, {"photo_manifest":null} and a null GeoJSON feature: each a source error naming its file', async () => {
    const deep = file('bad/deep.json', '{"photos":[' + '['.repeat(100_000) + ']'.repeat(100_000) + ']}')
    const nullManifest = file('bad/null-manifest.json', '{"photo_manifest":null}')
    const nullFeature = file('bad/null-feature.geojson', '{"type":"FeatureCollection","features":[null]}')
    const good = file('bad/good.json', JSON.stringify({ photos: [v1(990001)] }))
    for (const p of [deep, nullManifest, nullFeature]) {
      const err = await readSources([p]).catch((e) => e)
      expect(err).toBeInstanceOf(SourceError)
      expect(err.file).toBe(p)
    }
    expect((await readSources([deep]).catch((e) => e)).reason).toBe('JSON nested deeper than 64 levels')
    const r = await readSources([join(scratch, 'bad')], { skipBad: true })
    expect(r.records.map((x) => x.id)).toEqual([990001])
    expect(r.skipped.map((s) => s.file).sort()).toEqual([deep, nullFeature, nullManifest].sort())
    expect(good).toBeTruthy()
  })

  test('symbolic links: a link out of the source folder is not read, a link loop ends, links inside are followed once', async () => {
    const root = join(scratch, 'links')
    mkdirSync(root, { recursive: true })
    writeFileSync(join(root, 'good.json'), JSON.stringify({ photos: [v1(990001)] }))
    symlinkSync('/etc/passwd', join(root, 'passwd.json'))
    symlinkSync(join(root, 'b.json'), join(root, 'a.json'))
    symlinkSync(join(root, 'a.json'), join(root, 'b.json'))
    symlinkSync(root, join(root, 'again')) // a folder loop
    symlinkSync(join(root, 'good.json'), join(root, 'same.json'))
    const r = await readSources([root])
    expect(r.records.map((x) => x.id)).toEqual([990001])
    expect(r.sources.length).toBe(1)
    const reasons = Object.fromEntries(r.skipped.map((s) => [s.file.slice(s.file.lastIndexOf('/') + 1), s.reason]))
    expect(reasons).toEqual({ 'a.json': 'symbolic link loop', 'b.json': 'symbolic link loop', 'passwd.json': 'symbolic link leads outside the source folders' })
    expect(JSON.stringify(r)).not.toContain('root:')
  })

  test('control characters in a file name are printed escaped, in errors and in the skip report', async () => {
    const p = file('ctl/evil\u001b[2J\u202ename.json', '{not json')
    const err = await readSources([p]).catch((e) => e)
    expect(err.message).toContain('evil\\x1b[2J\\u202ename.json')
    expect(err.message).not.toContain('\u001b')
    const out = cli('--out', join(scratch, 'ctl-out'), '--only-sources', p)
    expect(out.code).toBe(1)
    expect(out.stderr).toContain('evil\\x1b[2J\\u202ename.json')
    expect(out.stderr).not.toContain('\u001b')
  })
})

describe('values are validated per rover at build time', () => {
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['javascript: URL', { img_src: 'javascript:alert(1)' }, 'image full URL has scheme "javascript:"; only http and https image URLs are served'],
    ['data: URL', { img_src: 'data:text/html,<script>alert(1)</script>' }, 'image full URL has scheme "data:"; only http and https image URLs are served'],
    ['CR/LF in a URL', { img_src: 'http://mars.jpl.nasa.gov/a.JPG\r\nSet-Cookie: x=1' }, 'image full URL holds whitespace or control characters'],
    ['<script> as the image id', { img_src: 'http://mars.jpl.nasa.gov/x/%3Cscript%3E.JPG' }, 'nasa_id "%3Cscript%3E" is not a NASA product id'],
    ['sol 10^9', { sol: 1_000_000_000 }, ''],
    ['earth_date 9999-12-31', { earth_date: '9999-12-31' }, "earth_date 9999-12-31 is outside curiosity's mission"],
    ['a v1 id of 2^30', { id: 2 ** 30 }, 'is not an integer in [1, 2^30)'],
  ]
  for (const [what, over, reason] of cases) {
    test(`v1 record with ${what}: refused naming file and record; with --skip-bad the good record stays`, async () => {
      const p = file(`values/${what.replace(/\W+/g, '-')}.json`, JSON.stringify({ photos: [v1(990001), v1(990002, { ...over })] }))
      const err = await readSources([p]).catch((e) => e)
      expect(err).toBeInstanceOf(SourceError)
      expect(err.file).toBe(p)
      if (reason) expect(err.reason).toContain(reason)
      else expect(err.reason).toMatch(/^sol 1000000000 is not an integer in \[0, \d{4}\]$/)
      const r = await readSources([p], { skipBad: true })
      expect(r.records.map((x) => x.id)).toEqual([990001])
    })
  }

  test('raw-feed records with <script> in sample_type or date_taken_mars, or a date in 9999, are refused', async () => {
    const p = file('values/feed.json', JSON.stringify({ images: [
      m2020(),
      m2020({ imageid: 'NLF_0100_0675828701_276ECM_N0040218NCAM00503_01_295J', sample_type: '<script>alert(1)</script>' }),
      m2020({ imageid: 'NLF_0100_0675828702_276ECM_N0040218NCAM00503_01_295J', date_taken_mars: '<script>alert(1)</script>' }),
      m2020({ imageid: 'NLF_0100_0675828703_276ECM_N0040218NCAM00503_01_295J', date_taken_utc: '9999-12-31T00:00:00' }),
    ] }))
    const r = await readSources([p], { skipBad: true })
    expect(r.records.length).toBe(1)
    expect(r.skipped.map((s) => s.reason)).toEqual([
      'sample_type "<script>alert(1)</script>" is not a sample type',
      'date_taken_mars "<script>alert(1)</script>" is not "Sol-NNNNNMhh:mm:ss"',
      "date_taken_utc 9999-12-31T00:00:00.000Z is outside perseverance's mission",
    ])
  })

  test('mast_azimuth is normalised into [0, 360): −156.098 becomes 203.902, 360 becomes 0', async () => {
    const p = file('values/angles.json', JSON.stringify({ images: [m2020({ extended: { sclk: '675828717.1', mastAz: '-156.098', mastEl: '-10' } }), m2020({ imageid: 'NLF_0100_0675828799_276ECM_N0040218NCAM00503_01_295J', extended: { sclk: '675828799.1', mastAz: '360', mastEl: '0' } })] }))
    const r = await readSources([p])
    expect(r.records.map((x) => x.mast_azimuth).sort()).toEqual([0, 360 - 156.098].sort())
  })
})

describe('CSV by RFC 4180', () => {
  test('a quoted field may hold commas, quotes and line breaks', () => {
    const t = parseTable('id,camera,img_src\r\n1,"Mast ""Camera"",\nleft",http://x/a.JPG\r\n2,b,http://x/b.JPG\n')
    expect(t.rows).toEqual([['1', 'Mast "Camera",\nleft', 'http://x/a.JPG'], ['2', 'b', 'http://x/b.JPG']])
  })

  test('an unterminated quote or a stray quote is an error naming the file and line', async () => {
    const a = file('csv/unterminated.csv', 'id,earth_date,camera_name,img_src\n1,2012-08-07,FHAZ,"http://x/a.JPG\n2,2012-08-07,FHAZ,http://x/b.JPG\n')
    expect((await readSources([a]).catch((e) => e)).message).toBe(`${a}: line 2: unterminated quoted field`)
    const b = file('csv/stray.csv', 'id,earth_date,camera_name,img_src\n1,2012-08-07,FH"AZ,http://x/a.JPG\n')
    expect((await readSources([b]).catch((e) => e)).message).toBe(`${b}: line 2: a quote inside an unquoted field`)
  })
})

describe('publishing is refused when it would take the catalogue away', () => {
  const out = join(scratch, 'served')
  const spirit = join(REPO, '../shared/data/raw/elbi3__Mars-Rover-Photo-Journal/spiritSol1.json.gz')
  const opportunity = join(REPO, '../shared/data/raw/elbi3__Mars-Rover-Photo-Journal/opportunitySol1.json.gz')

  test('--skip-bad over only bad files builds 0 photos: refused without --force, the served index untouched', () => {
    expect(cli('--out', out, '--only-sources', opportunity).code).toBe(0)
    const served = readlinkSync(join(out, 'current'))
    const bad = file('zero/bad.json', '{nope')
    const r = cli('--out', out, '--only-sources', '--skip-bad', bad)
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('not published: the build holds 0 photos')
    expect(readlinkSync(join(out, 'current'))).toBe(served)
  })

  test('more than 10% fewer photos than the served index needs --force (95 → 77); with it the build is published', () => {
    const served = readlinkSync(join(out, 'current'))
    const r = cli('--out', out, '--only-sources', spirit)
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('the build holds 77 photos, 18.9% fewer than the 95 of the served index')
    expect(readlinkSync(join(out, 'current'))).toBe(served)
    const forced = cli('--out', out, '--only-sources', '--force', spirit)
    expect(forced.code).toBe(0)
    expect(readlinkSync(join(out, 'current'))).not.toBe(served)
  })

  test('source paths add to the default real sources; --only-sources reads them alone', async () => {
    const extra = file('extra/extra.json', JSON.stringify({ photos: [v1(990001)] }))
    // the test index (test/setup/preload.ts) is the default build
    const defaults = JSON.parse(readFileSync(join(process.env.INDEX_DIR!, 'current', 'manifest.json'), 'utf8')).rows.photos as number
    const r = cli('--out', join(scratch, 'added'), extra)
    expect(r.code).toBe(0)
    expect(r.stdout).toContain(`photos ${(defaults + 1).toLocaleString('en-US')} `)
    const only = await buildIndex({ out: join(scratch, 'only'), sources: [extra] })
    expect(only.manifest.rows.photos).toBe(1)
    expect(cli('--out', join(scratch, 'only'), '--only-sources').code).toBe(2)
  }, 60_000)
})
