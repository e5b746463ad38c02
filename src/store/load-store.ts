import { existsSync, lstatSync, readFileSync, realpathSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { tableFromIPC, type Table } from 'apache-arrow'
import { loadAccessPaths, type AccessPaths } from './access-paths'
import { columnsFromTable } from './arrow-columns'
import { JOURNEY_STOP_LAYOUT, LOCATION_LAYOUT, PANORAMA_LAYOUT, PHOTO_LAYOUT, RAW_ENDS_LAYOUT, SOL_MANIFEST_LAYOUT, TRAVERSE_LAYOUT, type ColumnLayout } from './column-layout'
import { CHECKSUM_PART, loadBatchedTable, ONE_BUFFER_LIMIT, partChecksums } from './batched-table'
import { IndexLoadError } from './index-load-error'
import { rawTextColumn } from './raw-text'
import { FILES, RAW_FILES, type JourneyStopColumns, type LocationColumns, type Manifest, type PanoramaColumns, type PhotoColumns, type SolManifestColumns, type TraverseColumns } from './schema'
import type { Store } from './store'
import { ROVER_SLUGS } from '../catalog/rovers'
import { addArrivalSorts } from '../ledger/arrival-sorts'
import { loadArrivals, type Arrivals } from '../ledger/arrivals'

/**
 * Loads one index into an immutable Store snapshot (schema.ts):
 *  1. resolves `<indexDir>/current` (or takes `indexDir` itself when it is a version folder);
 *  2. reads manifest.json and checks its shape;
 *  3. checks every listed file's byte size (a truncated or replaced file stops here);
 *  4. reads each Arrow file once and maps its columns onto typed arrays that are views over the
 *     file's buffers (no per-row objects; only dictionaries become string arrays), checking each
 *     column's Arrow type and the row counts against column-layout.ts and the manifest;
 *  5. maps the query engine's access paths (loadAccessPaths).
 * Content is verified by default (`verify: 'checksum'`): every file's XXH3-64, written by the
 * builder into manifest.json, is compared before the snapshot is served, so a file damaged in
 * place at its own size (same version, so old ETags would still match) is refused at start and
 * at reload. XXH3 is not cryptographic but reads at several GB/s, inside the 1 s load budget;
 * SHA-256 of the ~770 MB of a 1.9M-photo index costs ~2.6 s on a 2-core machine without SHA
 * extensions, so it is checked only with `verify: 'sha256'` (INDEX_VERIFY=sha256), for an
 * operator who fears deliberate tampering. A file whose manifest entry has no xxh3 (an index built
 * before it existed) is checked by SHA-256. `verify: 'size'` (INDEX_VERIFY=size) checks sizes and
 * the Arrow structure only. Every failure is an IndexLoadError naming the file.
 */
export interface LoadOptions {
  verify?: 'size' | 'checksum' | 'sha256'
}

type Verify = NonNullable<LoadOptions['verify']>

function verifyFromEnv(): Verify {
  const v = process.env.INDEX_VERIFY
  return v === 'sha256' || v === 'size' ? v : 'checksum'
}

const TABLE_FILES = [FILES.photos, FILES.locations, FILES.panoramas, FILES.accessPaths, FILES.solManifest, FILES.traverses, FILES.journeyStops] as const

export async function loadStore(indexDir: string, opts: LoadOptions = {}): Promise<Store> {
  const started = performance.now()
  const verify = opts.verify ?? verifyFromEnv()
  const dir = resolveIndexDir(indexDir)
  const manifest = readManifestFile(dir)
  for (const [name, f] of Object.entries(manifest.files)) checkSize(join(dir, name), f.bytes)

  // The mapped files are checked first, while the photo columns do not yet hold memory: the
  // peak is then the larger of the access paths' mapping and the columns plus one part.
  if (verify !== 'size') verifyMapped(dir, FILES.accessPaths, manifest, verify)
  for (const name of Object.keys(manifest.files)) if (verify !== 'size' && !(TABLE_FILES as readonly string[]).includes(name)) verifyMapped(dir, name, manifest, verify)
  const photos = (await loadPhotos(dir, manifest, verify)) as unknown as PhotoColumns
  // A big catalogue's raw JSON is in raw.bin, mapped, instead of photos.arrow (raw-text.ts).
  const rawEnds = manifest.files[RAW_FILES.ends] ? (mapTable(dir, RAW_FILES.ends, await readChecked(dir, RAW_FILES.ends, manifest, verify), RAW_ENDS_LAYOUT, manifest.rows.photos).raw_end as Float64Array) : undefined
  photos.raw = rawTextColumn(dir, manifest, photos.raw, rawEnds)
  const [locationBytes, panoramaBytes, solManifestBytes] = await Promise.all(
    [FILES.locations, FILES.panoramas, FILES.solManifest].map((name) => readChecked(dir, name, manifest, verify)),
  )
  const locations = mapTable(dir, FILES.locations, locationBytes!, LOCATION_LAYOUT, manifest.rows.locations) as unknown as LocationColumns
  const panoramas = mapTable(dir, FILES.panoramas, panoramaBytes!, PANORAMA_LAYOUT, manifest.rows.panoramas) as unknown as PanoramaColumns
  const solManifest = mapTable(dir, FILES.solManifest, solManifestBytes!, SOL_MANIFEST_LAYOUT, manifest.rows.sol_manifest) as unknown as SolManifestColumns
  const [traverseBytes, stopBytes] = await Promise.all([FILES.traverses, FILES.journeyStops].map((name) => readChecked(dir, name, manifest, verify)))
  const traverses = mapTable(dir, FILES.traverses, traverseBytes!, TRAVERSE_LAYOUT, manifest.rows.traverse_points) as unknown as TraverseColumns
  const journeyStops = mapTable(dir, FILES.journeyStops, stopBytes!, JOURNEY_STOP_LAYOUT, manifest.rows.journey_stops) as unknown as JourneyStopColumns

  let paths: AccessPaths
  try {
    paths = loadAccessPaths(dir, photos)
  } catch (e) {
    if (e instanceof IndexLoadError) throw e
    throw new IndexLoadError(join(dir, FILES.accessPaths), e instanceof Error ? e.message : String(e))
  }

  // The arrival ledger travels with the version folder (src/ledger/ledger-file.ts).
  let arrivals: Arrivals
  try {
    arrivals = loadArrivals(dir, manifest, photos, paths)
  } catch (e) {
    if (e instanceof IndexLoadError) throw e
    throw new IndexLoadError(join(dir, 'ledger.arrow'), e instanceof Error ? e.message : String(e))
  }
  photos.added_at = arrivals.addedAt
  addArrivalSorts(paths, { added_at: arrivals.addedAt, date_received: photos.date_received })

  for (const t of [photos, locations, panoramas, solManifest, traverses, journeyStops] as object[]) Object.freeze(t)
  return Object.freeze({
    dir,
    manifest: deepFreeze(manifest),
    version: manifest.version,
    photos,
    // columnsFromTable refused any rover dictionary but the catalogue's: this is the loaded one.
    rovers: ROVER_SLUGS,
    locations,
    panoramas,
    solManifest,
    traverses,
    journeyStops,
    paths,
    arrivals,
    loadMs: performance.now() - started,
  })
}

/** The real path of the version folder: `indexDir` itself, or what `indexDir/current` points at. */
export function resolveIndexDir(indexDir: string): string {
  if (existsSync(join(indexDir, FILES.manifest))) return realpathSync(indexDir)
  const current = join(indexDir, 'current')
  let isLink = false
  try {
    isLink = lstatSync(current).isSymbolicLink()
  } catch {
    if (!existsSync(indexDir)) throw new IndexLoadError(indexDir, 'no such folder (build an index with "npm run build-index")')
    throw new IndexLoadError(indexDir, 'holds neither manifest.json nor a "current" link (build an index with "npm run build-index")')
  }
  if (!existsSync(current)) throw new IndexLoadError(current, isLink ? 'points at a version folder that does not exist' : 'does not exist')
  const dir = realpathSync(current)
  if (!statSync(dir).isDirectory()) throw new IndexLoadError(current, 'is not a folder')
  if (!existsSync(join(dir, FILES.manifest))) throw new IndexLoadError(join(dir, FILES.manifest), 'is missing')
  return dir
}

function readManifestFile(dir: string): Manifest {
  const path = join(dir, FILES.manifest)
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (e) {
    throw new IndexLoadError(path, `cannot be read (${(e as Error).message})`)
  }
  let m: any
  try {
    m = JSON.parse(text)
  } catch (e) {
    throw new IndexLoadError(path, `is not valid JSON (${(e as Error).message}); the file is truncated or damaged`)
  }
  const bad = (why: string): never => {
    throw new IndexLoadError(path, why)
  }
  if (typeof m !== 'object' || m === null || Array.isArray(m)) bad('is not a JSON object')
  if (m.schema_version !== 1) bad(`has schema_version ${JSON.stringify(m.schema_version)}; this server reads schema_version 1`)
  if (typeof m.version !== 'string' || m.version === '') bad('has no version')
  if (m.kind !== 'real' && m.kind !== 'synthetic') bad(`has kind ${JSON.stringify(m.kind)} (expected "real" or "synthetic")`)
  if (typeof m.built_at !== 'string') bad('has no built_at')
  for (const t of ['photos', 'locations', 'panoramas', 'sol_manifest', 'traverse_points', 'journey_stops']) {
    const n = m.rows?.[t]
    if (!Number.isInteger(n) || n < 0) bad(`rows.${t} is ${JSON.stringify(n)}, not a row count`)
  }
  if (typeof m.files !== 'object' || m.files === null) bad('has no files list')
  for (const name of TABLE_FILES) if (!m.files[name]) bad(`does not list ${name}`)
  for (const [name, f] of Object.entries<any>(m.files)) {
    if (name.includes('/') || name.startsWith('.')) bad(`lists a file outside the index folder: ${name}`)
    if (!Number.isInteger(f?.bytes) || f.bytes < 0 || typeof f?.sha256 !== 'string') bad(`entry for ${name} needs bytes and sha256`)
    if (f.xxh3 !== undefined && (typeof f.xxh3 !== 'string' || !/^[0-9a-f]{16}$/.test(f.xxh3))) bad(`entry for ${name} has a malformed xxh3`)
    if (f.xxh3_parts !== undefined && (!Array.isArray(f.xxh3_parts) || !f.xxh3_parts.every((h: unknown) => typeof h === 'string' && /^[0-9a-f]{16}$/.test(h)))) bad(`entry for ${name} has malformed xxh3_parts`)
    if (f.xxh3_part_bytes !== undefined && (!Number.isInteger(f.xxh3_part_bytes) || f.xxh3_part_bytes < 1 || f.xxh3_part_bytes > CHECKSUM_PART || !Array.isArray(f.xxh3_parts))) bad(`entry for ${name} has a malformed xxh3_part_bytes`)
    if (Array.isArray(f.xxh3_parts) && f.xxh3_parts.length !== Math.ceil(f.bytes / partBytesOf(f))) bad(`entry for ${name} lists ${f.xxh3_parts.length} xxh3_parts for ${f.bytes} bytes in parts of ${partBytesOf(f)}`)
  }
  if (m.nasa_manifests !== undefined) {
    const nm = m.nasa_manifests
    if (typeof nm !== 'object' || nm === null || Array.isArray(nm)) bad('has nasa_manifests that is not an object')
    for (const [slug, f] of Object.entries<any>(nm)) {
      if (!(ROVER_SLUGS as readonly string[]).includes(slug)) bad(`has nasa_manifests for an unknown rover ${JSON.stringify(slug).slice(0, 40)}`)
      for (const k of ['total_photos', 'sols']) if (!Number.isInteger(f?.[k]) || f[k] < 0) bad(`nasa_manifests.${slug}.${k} is ${JSON.stringify(f?.[k])}, not a count`)
    }
  }
  if (!Array.isArray(m.sources)) m.sources = []
  return m as Manifest
}

function checkSize(path: string, bytes: number): void {
  let size: number
  try {
    size = statSync(path).size
  } catch {
    throw new IndexLoadError(path, 'is missing (listed in manifest.json)')
  }
  if (size !== bytes) throw new IndexLoadError(path, `is ${size} bytes, manifest.json says ${bytes}: truncated or replaced`)
}

async function readChecked(dir: string, name: string, manifest: Manifest, verify: Verify): Promise<Uint8Array> {
  const path = join(dir, name)
  const bytes = await Bun.file(path).bytes()
  const want = manifest.files[name]!
  if (bytes.length !== want.bytes) throw new IndexLoadError(path, `is ${bytes.length} bytes, manifest.json says ${want.bytes}: truncated or replaced`)
  checkContent(path, bytes, want, verify)
  return bytes
}

/**
 * A file mapped (Bun.mmap) and checked like a read one. The photo table is mapped, not read: a
 * read copies it into fresh memory, which an `npm run update` then waits on at every reload (on
 * the 2-core virtual machine measured, ~12 ms a MB: 2 s for the 160 MB of 80,000 feed records,
 * ~12 s at 1.5 million), where the mapping takes the page cache's pages the builder just wrote.
 * Like the access paths and raw.bin: a published version folder is never rewritten in place, so
 * the mapping holds what was checked. INDEX_MMAP=0 reads it into memory instead.
 */
async function mappedChecked(dir: string, name: string, manifest: Manifest, verify: Verify): Promise<Uint8Array> {
  if (process.env.INDEX_MMAP === '0' || typeof Bun === 'undefined' || typeof Bun.mmap !== 'function') return readChecked(dir, name, manifest, verify)
  const path = join(dir, name)
  const want = manifest.files[name]!
  const bytes = want.bytes === 0 ? new Uint8Array(0) : Bun.mmap(path, { shared: false })
  if (bytes.length !== want.bytes) throw new IndexLoadError(path, `is ${bytes.length} bytes, manifest.json says ${want.bytes}: truncated or replaced`)
  checkContent(path, bytes, want, verify)
  return bytes
}

/** The content check of a file the loader does not read itself (access paths: mapped, not copied). */
function verifyMapped(dir: string, name: string, manifest: Manifest, verify: Verify): void {
  const path = join(dir, name)
  const size = statSync(path).size
  checkMapped(path, manifest.files[name]!, verify)
  // The check's mapping (up to ~3 GB of pages at 19M photos) goes now, not at some later collection.
  if (size >= 1 << 26) Bun.gc(true)
}

/** Bytes per `xxh3_parts` checksum of a manifest entry: as it states, else a GiB (indexes written before it said). */
function partBytesOf(f: { xxh3_part_bytes?: number }): number {
  return f.xxh3_part_bytes ?? CHECKSUM_PART
}

function checkMapped(path: string, want: Manifest['files'][string], verify: Verify): void {
  if (want.xxh3_parts) {
    // Hashed a part at a time, as the builder did, into one reused buffer: never mapped here.
    const sha = verify === 'sha256' ? new Bun.CryptoHasher('sha256') : undefined
    const parts = partChecksums(path, sha ? (part) => sha.update(part) : undefined, partBytesOf(want))
    if (!sha && (parts.length !== want.xxh3_parts.length || parts.some((h, i) => h !== want.xxh3_parts![i]))) throw new IndexLoadError(path, `checksum (XXH3) of its parts differs from manifest.json: the file is damaged`)
    if (sha && sha.digest('hex') !== want.sha256) throw new IndexLoadError(path, `SHA-256 differs from manifest.json (${want.sha256}): the file is damaged`)
    return
  }
  const bytes = typeof Bun.mmap === 'function' && statSync(path).size > 0 ? Bun.mmap(path, { shared: false }) : new Uint8Array(readFileSync(path))
  checkContent(path, bytes, want, verify)
}

function checkContent(path: string, bytes: Uint8Array, want: Manifest['files'][string], verify: Verify): void {
  if (verify === 'checksum' && want.xxh3 !== undefined) {
    const got = Bun.hash.xxHash3(bytes).toString(16).padStart(16, '0')
    if (got !== want.xxh3) throw new IndexLoadError(path, `checksum (XXH3) ${got} differs from manifest.json (${want.xxh3}): the file is damaged`)
  } else if (verify === 'checksum' && want.xxh3_parts !== undefined) {
    // A file read whole that the builder hashed in parts (larger than its digest buffer).
    const step = partBytesOf(want)
    for (let i = 0, at = 0; at < bytes.length; i++, at += step) {
      const got = Bun.hash.xxHash3(bytes.subarray(at, at + step)).toString(16).padStart(16, '0')
      if (got !== want.xxh3_parts[i]) throw new IndexLoadError(path, `checksum (XXH3) of part ${i} is ${got}, manifest.json says ${want.xxh3_parts[i] ?? 'there is no such part'}: the file is damaged`)
    }
  } else if (verify !== 'size') {
    const got = new Bun.CryptoHasher('sha256').update(bytes).digest('hex')
    if (got !== want.sha256) throw new IndexLoadError(path, `SHA-256 ${got} differs from manifest.json (${want.sha256}): the file is damaged`)
  }
}

/**
 * The photo table: mapped whole (views on the file's pages), or, for a file of 4 GiB
 * or more (more than one ArrayBuffer holds), read once part by part, each part verified and
 * its batches' columns copied into one array per column (batched-table.ts).
 */
async function loadPhotos(dir: string, manifest: Manifest, verify: Verify): Promise<Record<string, unknown>> {
  const want = manifest.files[FILES.photos]!
  if (want.bytes < ONE_BUFFER_LIMIT) return mapTable(dir, FILES.photos, await mappedChecked(dir, FILES.photos, manifest, verify), PHOTO_LAYOUT, manifest.rows.photos)
  const check = verify === 'size' ? {} : verify === 'checksum' && want.xxh3_parts ? { xxh3Parts: want.xxh3_parts, partBytes: partBytesOf(want) } : { sha256: want.sha256 }
  const columns = await loadBatchedTable(join(dir, FILES.photos), PHOTO_LAYOUT, manifest.rows.photos, check)
  // The last part's mapping may outlive the reader's frame; it goes before the next file is mapped.
  Bun.gc(true)
  return columns
}

function mapTable(dir: string, name: string, bytes: Uint8Array, layout: ColumnLayout, rows: number): Record<string, unknown> {
  const path = join(dir, name)
  let table: Table
  try {
    table = tableFromIPC(bytes)
  } catch (e) {
    throw new IndexLoadError(path, `is not a readable Arrow IPC file (${(e as Error).message})`)
  }
  return columnsFromTable(path, table, layout, rows)
}

function deepFreeze<T>(o: T): T {
  if (o && typeof o === 'object') {
    for (const v of Object.values(o)) deepFreeze(v)
    Object.freeze(o)
  }
  return o
}
