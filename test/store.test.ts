import { takenSortColumn } from '../src/query/order/sort-values'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { tableToIPC } from 'apache-arrow'
import { readSources } from '../index-builder/normalize/normalize-sources'
import type { PhotoRecord } from '../index-builder/normalize/photo-record'
import { tableFromColumns } from '../index-builder/encode/arrow-table'
import { ROVER_SLUGS } from '../src/catalog/rovers'
import { PHOTO_LAYOUT } from '../src/store/column-layout'
import { IndexLoadError } from '../src/store/index-load-error'
import { loadStore, resolveIndexDir } from '../src/store/load-store'
import { FILES, INT_ABSENT, type Manifest, type TextColumn } from '../src/store/schema'
import type { Store } from '../src/store/store'

const INDEX_DIR = process.env.INDEX_DIR!
const REPO = resolve(import.meta.dir, '..')
const decoder = new TextDecoder()
const text = (c: TextColumn, row: number) => decoder.decode(c.data.subarray(c.offsets[row], c.offsets[row + 1]))

/** The PhotoRecord fields a store row gives back (absent = left out, as in PhotoRecord). */
function recordAt(s: Store, row: number): Omit<PhotoRecord, 'source'> {
  const p = s.photos
  const r: Record<string, unknown> = {
    id: p.id[row],
    rover: ROVER_SLUGS[p.rover[row]!],
    camera: p.camera.dict[p.camera.codes[row]!],
    nasa_id: text(p.nasa_id, row),
    sol: p.sol[row],
    earth_date: new Date(p.earth_date[row]! * 86_400_000).toISOString().slice(0, 10),
    images: {} as Record<string, string>,
  }
  const int = (k: string, v: number) => v !== INT_ABSENT && (r[k] = v)
  const num = (k: string, v: number) => !Number.isNaN(v) && (r[k] = v)
  const str = (k: string, v: string) => v !== '' && (r[k] = v)
  num('date_taken_utc', p.date_taken_utc[row]!)
  str('date_taken_mars', text(p.date_taken_mars, row))
  int('mars_time_ms', p.mars_time_ms[row]!)
  str('sample_type', p.sample_type.dict[p.sample_type.codes[row]!]!)
  int('width', p.width[row]!)
  int('height', p.height[row]!)
  int('site', p.site[row]!)
  int('drive', p.drive[row]!)
  if (!Number.isNaN(p.coord_x[row]!)) r.xyz = [p.coord_x[row], p.coord_y[row], p.coord_z[row]]
  num('mast_azimuth', p.mast_azimuth[row]!)
  num('mast_elevation', p.mast_elevation[row]!)
  num('sclk', p.sclk[row]!)
  num('sun_elevation', p.sun_elevation[row]!)
  num('sun_azimuth', p.sun_azimuth[row]!)
  num('solar_longitude', p.solar_longitude[row]!)
  num('date_received', p.date_received[row]!)
  const dir = p.image_dir.dict[p.image_dir.codes[row]!]!
  for (const size of ['small', 'medium', 'large', 'full'] as const) {
    const name = text(p[`image_${size}`], row)
    if (name !== '') (r.images as Record<string, string>)[size] = dir + name
  }
  str('title', p.title.dict[p.title.codes[row]!]!)
  str('caption', p.caption.dict[p.caption.codes[row]!]!)
  str('credit', p.credit.dict[p.credit.codes[row]!]!)
  str('raw', text(p.raw, row))
  return r as Omit<PhotoRecord, 'source'>
}

const SUN_FIELDS = ['sun_elevation', 'sun_azimuth', 'solar_longitude'] as const

/** A record as the store can hold it: mast angles are Float32 columns (schema.ts). */
function storable(rec: PhotoRecord): Omit<PhotoRecord, 'source'> {
  // id_key is the builder's (the id as the record states it, which numeric ids are computed from): not stored.
  // sequence_id is stored in its served form (<rover>-<sol>-<SEQUENCE>, test/related-photos.test.ts).
  const { source: _source, id_key: _idKey, sequence_id: _sequence, ...r } = rec
  const out: Record<string, unknown> = { ...r, images: { ...r.images } }
  if (r.mast_azimuth !== undefined) out.mast_azimuth = Math.fround(r.mast_azimuth)
  if (r.mast_elevation !== undefined) out.mast_elevation = Math.fround(r.mast_elevation)
  for (const k of SUN_FIELDS) if (r[k] !== undefined) out[k] = Math.fround(r[k])
  for (const [k, v] of Object.entries(out)) if (v === undefined) delete out[k]
  for (const [k, v] of Object.entries(out.images as object)) if (v === undefined) delete (out.images as Record<string, unknown>)[k]
  return out as Omit<PhotoRecord, 'source'>
}

let store: Store
let records: PhotoRecord[]
const scratch = mkdtempSync(join(tmpdir(), 'store-test-'))

beforeAll(async () => {
  store = await loadStore(INDEX_DIR)
  records = (await readSources()).records
})
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

describe('a store loaded from the built real index', () => {
  test('holds one row per normalised record, and every row gives back exactly its record (every field)', () => {
    expect(store.photos.length).toBe(records.length)
    expect(store.manifest.rows.photos).toBe(records.length)
    let compared = 0
    for (const rec of records) {
      const row = store.paths.rowOfId(rec.id!)
      expect(row).toBeGreaterThanOrEqual(0)
      const got = recordAt(store, row)
      // The builder derives the sun of a record that states none (index-builder/sun/, test/sun-derived.test.ts): a stated sun comes back as stated.
      for (const k of SUN_FIELDS) if (rec[k] === undefined) delete got[k]
      expect(got).toEqual(storable(rec))
      compared++
    }
    expect(compared).toBe(records.length)
  })

  test('photo rows are in the default order: the date_taken_utc sort key descending (no time: the end of its earth_date), unknown last, then id ascending', () => {
    const { id } = store.photos
    const t = takenSortColumn(store.photos.date_taken_utc, store.photos.earth_date, store.photos.length)
    for (let i = 1; i < store.photos.length; i++) {
      const a = t[i - 1]!
      const b = t[i]!
      const ok = Number.isNaN(a) ? Number.isNaN(b) && id[i - 1]! < id[i]! : Number.isNaN(b) || a > b || (a === b && id[i - 1]! < id[i]!)
      if (!ok) throw new Error(`rows ${i - 1} and ${i} are out of the default order`)
    }
  })

  test('is one immutable snapshot: the snapshot and its tables are frozen, and it names its version folder', () => {
    expect(Object.isFrozen(store)).toBe(true)
    expect(Object.isFrozen(store.photos)).toBe(true)
    expect(Object.isFrozen(store.manifest)).toBe(true)
    expect(store.version).toBe(store.manifest.version)
    expect(store.dir).toBe(resolveIndexDir(INDEX_DIR))
    expect(store.manifest.kind).toBe('real')
  })

  test('column values are views over the Arrow file buffers, not copies (no per-row objects)', () => {
    const buf = store.photos.id.buffer
    expect(store.photos.sol.buffer).toBe(buf)
    expect(store.photos.nasa_id.data.buffer).toBe(buf)
    expect(store.photos.camera.codes.buffer).toBe(buf)
  })
})

/** A copy of the test index's version folder to damage. */
function copyIndex(name: string): string {
  const dir = join(scratch, name)
  cpSync(resolveIndexDir(INDEX_DIR), dir, { recursive: true })
  return dir
}

function setManifest(dir: string, edit: (m: Manifest) => void): void {
  const m = JSON.parse(readFileSync(join(dir, FILES.manifest), 'utf8'))
  edit(m)
  writeFileSync(join(dir, FILES.manifest), JSON.stringify(m))
}

async function loadError(dir: string, opts: Parameters<typeof loadStore>[1] = {}): Promise<IndexLoadError> {
  try {
    await loadStore(dir, opts)
  } catch (e) {
    expect(e).toBeInstanceOf(IndexLoadError)
    return e as IndexLoadError
  }
  throw new Error(`loadStore(${dir}) did not fail`)
}

describe('a missing or corrupt index is refused with an IndexLoadError naming the file and the reason', () => {
  test('a truncated Arrow file', async () => {
    const dir = copyIndex('truncated-arrow')
    truncateSync(join(dir, FILES.photos), Math.floor(statSync(join(dir, FILES.photos)).size / 2))
    const e = await loadError(dir)
    expect(e.file).toBe(join(dir, FILES.photos))
    expect(e.message).toContain('truncated')
  })

  test('a truncated Arrow file whose manifest size was edited to match fails the Arrow structure check', async () => {
    const dir = copyIndex('truncated-arrow-resized')
    const path = join(dir, FILES.panoramas)
    truncateSync(path, statSync(path).size - 64)
    setManifest(dir, (m) => (m.files[FILES.panoramas]!.bytes = statSync(path).size))
    // The default content check refuses it first (checksum); the structure check stands behind it.
    expect((await loadError(dir)).message).toContain('checksum')
    const e = await loadError(dir, { verify: 'size' })
    expect(e.file).toBe(path)
    expect(e.message).toContain('not a readable Arrow IPC file')
  })

  test('a truncated manifest', async () => {
    const dir = copyIndex('truncated-manifest')
    const path = join(dir, FILES.manifest)
    truncateSync(path, Math.floor(statSync(path).size / 2))
    const e = await loadError(dir)
    expect(e.file).toBe(path)
    expect(e.message).toContain('not valid JSON')
  })

  test('a missing file', async () => {
    const dir = copyIndex('missing-file')
    rmSync(join(dir, FILES.locations))
    const e = await loadError(dir)
    expect(e.file).toBe(join(dir, FILES.locations))
    expect(e.message).toContain('missing')
  })

  test('a row count that disagrees with the manifest', async () => {
    const dir = copyIndex('wrong-rows')
    setManifest(dir, (m) => (m.rows.photos += 1))
    const e = await loadError(dir)
    expect(e.file).toBe(join(dir, FILES.photos))
    expect(e.message).toContain(`the manifest says ${store.photos.length + 1}`)
  })

  test('a column of the wrong Arrow type', async () => {
    const dir = copyIndex('wrong-type')
    const layout = PHOTO_LAYOUT.map(([n, k]) => (n === 'sol' ? ([n, 'f64'] as const) : ([n, k] as const)))
    const cols = { ...store.photos, sol: Float64Array.from(store.photos.sol) }
    const bytes = tableToIPC(tableFromColumns(layout, cols as never, store.photos.length), 'file')
    writeFileSync(join(dir, FILES.photos), bytes)
    setManifest(dir, (m) => (m.files[FILES.photos]!.bytes = bytes.length))
    const e = await loadError(dir, { verify: 'size' })
    expect(e.message).toContain('column "sol" must be Int32')
  })

  test('a folder with no index, and a current link pointing nowhere', async () => {
    const empty = join(scratch, 'empty')
    mkdirSync(empty)
    expect((await loadError(empty)).message).toContain('neither manifest.json nor a "current" link')
    const dangling = join(scratch, 'dangling')
    cpSync(INDEX_DIR, dangling, { recursive: true, verbatimSymlinks: true })
    rmSync(join(dangling, store.version), { recursive: true })
    expect((await loadError(dangling)).message).toContain('points at a version folder that does not exist')
  })

  test('with verify sha256, a same-size damaged file is refused', async () => {
    const dir = copyIndex('damaged')
    const path = join(dir, FILES.locations)
    const bytes = readFileSync(path)
    bytes[bytes.length - 100] ^= 0xff
    writeFileSync(path, bytes)
    await expect(loadStore(dir, { verify: 'size' })).resolves.toBeDefined()
    try {
      await loadStore(dir, { verify: 'sha256' })
      throw new Error('did not fail')
    } catch (e) {
      expect(e).toBeInstanceOf(IndexLoadError)
      expect((e as Error).message).toContain('SHA-256')
    }
  })

  for (const [what, damage] of [
    ['a truncated Arrow file', (dir: string) => truncateSync(join(dir, FILES.photos), 1000)],
    ['a truncated manifest', (dir: string) => truncateSync(join(dir, FILES.manifest), 10)],
  ] as const) {
    test(`the server refuses to start on ${what} and says which file and why`, () => {
      const dir = copyIndex(`server-${what.replace(/\W+/g, '-')}`)
      damage(dir)
      const r = Bun.spawnSync([process.execPath, join(REPO, 'app', 'server.ts')], {
        cwd: REPO,
        env: { ...process.env, INDEX_DIR: dir, PORT: '0', LOG_LEVEL: 'silent', KEYS_DB: join(scratch, 'keys.sqlite'), WATCH_INDEX: 'false' },
        stdout: 'pipe',
        stderr: 'pipe',
        timeout: 30_000,
      })
      const err = r.stderr.toString()
      expect(r.exitCode).not.toBe(0)
      expect(err).toContain(what.includes('manifest') ? FILES.manifest : FILES.photos)
      expect(err).toContain(what.includes('manifest') ? 'not valid JSON' : 'truncated')
    })
  }
})
