import { afterAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { DataType, tableFromIPC } from 'apache-arrow'
import { buildIndex } from '../index-builder/build-index'
import { contentVersion } from '../index-builder/encode/manifest'
import { FILES, type Manifest } from '../src/store/schema'

const REPO = resolve(import.meta.dir, '..')
const RAW = resolve(REPO, '../shared/data/raw')
const SPIRIT = join(RAW, 'elbi3__Mars-Rover-Photo-Journal/spiritSol1.json.gz')
const OPPORTUNITY = join(RAW, 'elbi3__Mars-Rover-Photo-Journal/opportunitySol1.json.gz')
const scratch = mkdtempSync(join(tmpdir(), 'index-build-test-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

function cli(...args: string[]) {
  const r = Bun.spawnSync([process.execPath, join(REPO, 'index-builder/cli.ts'), ...args], { cwd: REPO, stdout: 'pipe', stderr: 'pipe' })
  return { code: r.exitCode, stdout: r.stdout.toString(), stderr: r.stderr.toString() }
}

function snapshot(out: string): Record<string, string> {
  const dir = join(out, readlinkSync(join(out, 'current')))
  const files: Record<string, string> = { current: readlinkSync(join(out, 'current')) }
  for (const name of readdirSync(dir)) files[name] = new Bun.CryptoHasher('sha256').update(readFileSync(join(dir, name))).digest('hex')
  return files
}

const v1Photo = (id: number, sol: unknown) => ({
  id,
  sol,
  camera: { id: 30, name: 'NAVCAM', rover_id: 7, full_name: 'Navigation Camera' },
  img_src: `http://mars.nasa.gov/mer/gallery/all/2/n/001/2N12646910${id % 10}EDN0000P1503L0M1-BR.JPG`,
  earth_date: '2004-01-05',
  rover: { id: 7, name: 'Spirit', landing_date: '2004-01-04', launch_date: '2003-06-10', status: 'complete' },
})

describe('publishing', () => {
  test('a build publishes out/<version> and points out/current at it; the manifest lists every file with bytes and sha256, and the version hashes them', async () => {
    const out = join(scratch, 'publish')
    const r = await buildIndex({ out, sources: [SPIRIT] })
    expect(readlinkSync(join(out, 'current'))).toBe(r.version)
    const m = JSON.parse(readFileSync(join(out, 'current', FILES.manifest), 'utf8')) as Manifest
    expect(m).toEqual(r.manifest)
    expect(m.kind).toBe('real')
    expect(m.schema_version).toBe(1)
    expect(m.rows.photos).toBe(77)
    expect(Object.keys(m.files).sort()).toEqual([FILES.accessPaths, FILES.locations, FILES.panoramas, FILES.photos, FILES.solManifest, FILES.traverses, FILES.journeyStops].sort())
    for (const [name, f] of Object.entries(m.files)) {
      const bytes = readFileSync(join(out, 'current', name))
      expect(bytes.length).toBe(f.bytes)
      expect(new Bun.CryptoHasher('sha256').update(bytes).digest('hex')).toBe(f.sha256)
    }
    expect(m.version).toBe(contentVersion(m.files, m.nasa_manifests))
    expect(m.sources.map((s) => s.path)).toEqual(['../shared/data/raw/elbi3__Mars-Rover-Photo-Journal/spiritSol1.json.gz'])
    expect(readdirSync(out).filter((n) => n.startsWith('.'))).toEqual([])
  })

  test('rebuilding the same content gives the same version and only re-points current; older versions beyond --keep are deleted', async () => {
    const out = join(scratch, 'keep')
    const a = await buildIndex({ out, sources: [SPIRIT] })
    const b = await buildIndex({ out, sources: [OPPORTUNITY] })
    expect(b.version).not.toBe(a.version)
    expect(readdirSync(out).sort()).toEqual([a.version, b.version, 'current', 'ledger.arrow'].sort())
    const again = await buildIndex({ out, sources: [SPIRIT], force: true }) // 77 photos after 95: a drop that needs force
    expect(again.version).toBe(a.version)
    expect(again.summary.reused).toBe(true)
    expect(readlinkSync(join(out, 'current'))).toBe(a.version)
    const c = await buildIndex({ out, sources: [SPIRIT, OPPORTUNITY], keep: 1 })
    expect(readdirSync(out).sort()).toEqual([c.version, 'current', 'ledger.arrow'].sort())
    expect(c.summary.removed.sort()).toEqual([a.version, b.version].sort())
  })

  test('a failed build (a malformed source, no --skip-bad) exits non-zero naming the file and leaves current and its files untouched', () => {
    const out = join(scratch, 'failed')
    expect(cli('--out', out, '--only-sources', SPIRIT).code).toBe(0)
    const before = snapshot(out)
    const bad = join(scratch, 'broken-photos.json')
    writeFileSync(bad, '{"photos": [{"id": 1, "sol": 1, ')
    const r = cli('--out', out, '--only-sources', SPIRIT, bad)
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('broken-photos.json')
    expect(r.stderr).toContain('the published index is unchanged')
    expect(snapshot(out)).toEqual(before)
    expect(readdirSync(out).filter((n) => n.startsWith('.'))).toEqual([])
  })

  test('a build killed while writing leaves current and its files untouched, and the next build clears its staging folder', async () => {
    const out = join(scratch, 'killed')
    expect(cli('--out', out, '--only-sources', SPIRIT).code).toBe(0)
    const before = snapshot(out)
    const child = Bun.spawn([process.execPath, join(REPO, 'index-builder/cli.ts'), '--out', out, '--synthetic', '--scale', '0.1'], { cwd: REPO, stdout: 'ignore', stderr: 'ignore' })
    const staging = () => readdirSync(out).filter((n) => n.startsWith('.staging-'))
    const until = Date.now() + 60_000
    while (staging().length === 0 && Date.now() < until && child.exitCode === null) await Bun.sleep(5)
    expect(staging().length).toBe(1)
    child.kill('SIGKILL')
    await child.exited
    expect(snapshot(out)).toEqual(before)
    expect(cli('--out', out, '--only-sources', OPPORTUNITY).code).toBe(0)
    expect(staging()).toEqual([])
  }, 90_000)

  test('--skip-bad skips a bad record, builds, and reports the skip counts', () => {
    const out = join(scratch, 'skip-bad')
    const file = join(scratch, 'one-bad-record.json')
    writeFileSync(file, JSON.stringify({ photos: [v1Photo(990001, 1), v1Photo(990002, 'not a sol')] }))
    const strict = cli('--out', out, '--only-sources', file)
    expect(strict.code).toBe(1)
    expect(strict.stderr).toContain('one-bad-record.json')
    expect(existsSync(join(out, 'current'))).toBe(false)
    const r = cli('--out', out, '--only-sources', '--skip-bad', file)
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('skipped 1')
    expect(r.stdout).toMatch(/photos 1\b/)
    const m = JSON.parse(readFileSync(join(out, 'current', FILES.manifest), 'utf8')) as Manifest
    expect(m.sources[0]!.skipped).toBe(1)
    expect(m.rows.photos).toBe(1)
  })

  test('--if-missing does nothing when current holds a complete index, and builds when it does not', () => {
    const out = join(scratch, 'if-missing')
    const first = cli('--out', out, '--only-sources', '--if-missing', SPIRIT)
    expect(first.code).toBe(0)
    expect(first.stdout).toContain('photos 77')
    const before = snapshot(out)
    const second = cli('--out', out, '--only-sources', '--if-missing', OPPORTUNITY)
    expect(second.code).toBe(0)
    expect(second.stdout).toContain('not rebuilding')
    expect(snapshot(out)).toEqual(before)
    rmSync(join(out, before.current!, FILES.photos))
    expect(cli('--out', out, '--only-sources', '--if-missing', SPIRIT).stdout).toContain('photos 77')
  })

  test('usage errors exit 2 with the usage text', () => {
    const r = cli('--scale', '0.5')
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('--seed and --scale need --synthetic')
    expect(cli('--synthetic', '--scale', 'abc').code).toBe(2)
  })
})

describe('the Arrow files follow the column contract (src/store/schema.ts)', () => {
  const dir = join(process.env.INDEX_DIR!, 'current')
  const photos = tableFromIPC(readFileSync(join(dir, FILES.photos)))
  const field = (name: string) => photos.schema.fields.find((f) => f.name === name)!

  test('numeric columns are typed ints and floats; absent values are Arrow nulls with -1 / NaN in the value slot', () => {
    expect(String(field('id').type)).toBe('Int32')
    expect(String(field('earth_date').type)).toBe('Date32<DAY>')
    expect(String(field('date_taken_utc').type)).toBe('Float64')
    expect(String(field('mast_azimuth').type)).toBe('Float32')
    const utc = photos.getChild('date_taken_utc')!.data[0]!
    const site = photos.getChild('site')!.data[0]!
    expect(utc.nullCount).toBeGreaterThan(0)
    expect(site.nullCount).toBeGreaterThan(0)
    let checked = 0
    for (let i = 0; i < photos.numRows; i++) {
      expect(utc.getValid(i)).toBe(!Number.isNaN((utc.values as Float64Array)[i]!))
      expect(site.getValid(i)).toBe((site.values as Int32Array)[i] !== -1)
      checked++
    }
    expect(checked).toBe(photos.numRows)
  })

  test('repeated strings are dictionary-encoded (rover with the rover slugs in catalogue order), strings are never null', () => {
    for (const name of ['camera', 'sample_type', 'image_dir', 'title', 'caption', 'credit', 'rover']) expect(DataType.isDictionary(field(name).type)).toBe(true)
    expect(String(field('rover').type)).toBe('Dictionary<Uint8, Utf8>')
    expect(String(field('camera').type)).toBe('Dictionary<Int16, Utf8>')
    expect([...photos.getChild('rover')!.data[0]!.dictionary!]).toEqual(['curiosity', 'opportunity', 'perseverance', 'spirit'])
    for (const name of ['nasa_id', 'date_taken_mars', 'image_full', 'raw']) {
      expect(String(field(name).type)).toBe('Utf8')
      expect(photos.getChild(name)!.nullCount).toBe(0)
    }
  })

  test('panorama photo ids are a List<Int32> column', () => {
    const pano = tableFromIPC(readFileSync(join(dir, FILES.panoramas)))
    expect(String(pano.schema.fields.find((f) => f.name === 'photo_ids')!.type)).toBe('List<Int32>')
  })
})

mkdirSync(scratch, { recursive: true })
