import { join } from 'node:path'
import { ROVER_SLUGS, type RoverSlug } from '../../src/catalog/rovers'
import { splitProductVersion } from '../../src/catalog/nasa-id-form'
import { PHOTO_LAYOUT, RAW_ENDS_LAYOUT, TRAVERSE_LAYOUT, type ColumnLayout } from '../../src/store/column-layout'
import { resolveIndexDir } from '../../src/store/load-store'
import { columnsFromTable } from '../../src/store/arrow-columns'
import { loadBatchedTable, ONE_BUFFER_LIMIT } from '../../src/store/batched-table'
import { FILES, RAW_FILES, type TextColumn, type DictColumn, type Manifest, type ManifestSource, type PhotoColumns, type TraverseColumns, type Utf8Column } from '../../src/store/schema'
import { tableFromIPC } from 'apache-arrow'
import { buildIndex, type BuildResult, type MergedInput } from '../build-index'
import { BUILDER, readManifest } from '../encode/manifest'
import { photoTableFromRecords } from '../encode/photo-table'
import { rawInlineBytes, type PhotoTable } from '../encode/raw-file'
import { BATCH_ROWS } from '../encode/arrow-table'
import { rawTextColumn } from '../../src/store/raw-text'
import { defaultOrder } from '../encode/photo-columns'
import { takenSortColumn } from '../../src/query/order/sort-values'
import { lowerBound } from '../../src/query/page/table-ranges'
import { pageStoreDigest } from '../fetch/page-store-digest'
import { ASSIGNED_ID_BASE, assignedIdFor } from '../normalize/assign-ids'
import { normalizeSources, type ClockLabels } from '../normalize/normalize-sources'
import type { Progress } from '../progress'
import { DEFAULT_SOURCE_DIRS, displayPath } from '../sources/list-files'
import { readSourceFiles } from '../sources/read-sources'
import { clockRegions } from './clock-regions'
import { MergedRaw } from './merged-raw'
import type { KeptRows } from '../derive/kept-rows'
import { folderOf, groupKey, groupOfFolder, pageFolders, readMergeState, roverLabels, solGroups, sourcesDigest, type MergeState, type SolGroup } from './merge-state'

/**
 * An update as a merge: the sols whose pages changed since the published index was built are read
 * and normalised alone, their rows replace theirs in the published photo columns, and the build's
 * later stages (encode, derive, write, access paths, digest, publish: build-index.ts) run on the
 * result as on any build, so the index is the one a clean full build of the same pages makes.
 *
 * Normalising has whole-catalogue steps; each is handled here or refused (the caller then runs
 * the full build, saying why):
 *   clock fit     fitted on every label (merge-state.ts keeps them per sol): a changed sol moves
 *                 the fit only between its neighbouring labelled sols (clock-regions.ts); the sols
 *                 with clock counts there are read again too, so their rows carry the new fit;
 *   stated values per record, with the v1 manifests kept in the merge state;
 *   dedupe        a record of a sol read again whose nasa_id (or v1 id) another sol's row holds
 *                 would fold across sols: refused;
 *   ids           assigned by hash with linear probing in key order (assign-ids.ts): the runs of
 *                 taken ids around each new or freed id are assigned again with every id in them,
 *                 as the full build would;
 *   sources       the manifest's per-page counts of the pages read again are replaced.
 * A sol read again must hold records of its own page-store folder only (a sol that bundled
 * sources also cover is not read again alone): else refused.
 */
export type MergeOutcome = { merged: true; result: BuildResult; sols: string[]; reread: string[]; timings: Record<string, number> } | { merged: false; why: string }

export interface MergeOptions {
  out: string
  pageStore: string
  sources?: string[]
  skipBad?: boolean
  keep?: number
  progress?: boolean | Progress
}

class Refused extends Error {}

/**
 * What a merge reads of the published index before it looks at the page store: its merge state,
 * manifest, photo columns (mapped) and traverses. `npm run update` has its merge process open it
 * while the fetch runs (merge-cli.ts --wait): the index cannot change meanwhile but by another
 * build, which mergeUpdate notices (another version folder) and opens the new one.
 */
export interface OpenedIndex {
  dir: string
  state: MergeState | undefined
  manifest: Manifest | undefined
  photos: Published | undefined
  traverses: MergedTraverses | undefined
}

type MergedTraverses = NonNullable<MergedInput['traverses']>

/** The published index at `out` opened for a merge, or undefined when none is published. */
export async function openPublished(out: string): Promise<OpenedIndex | undefined> {
  let dir: string
  try {
    dir = resolveIndexDir(out)
  } catch {
    return undefined
  }
  const state = readMergeState(dir)
  const manifest = state ? readManifest(dir) : undefined
  if (!state || !manifest) return { dir, state, manifest, photos: undefined, traverses: undefined }
  const photos = await publishedPhotos(dir, manifest)
  const traverses = { columns: (await mappedTable(dir, manifest, FILES.traverses, TRAVERSE_LAYOUT, manifest.rows.traverse_points)) as unknown as TraverseColumns, path: join(dir, FILES.traverses), entry: manifest.files[FILES.traverses]! }
  return { dir, state, manifest, photos, traverses }
}

/** A merge; `opened`: the published index opened before (openPublished), used when it is still the one published. */
export async function mergeUpdate(opts: MergeOptions, opened?: OpenedIndex): Promise<MergeOutcome> {
  try {
    return await merge(opts, opened)
  } catch (e) {
    if (e instanceof Refused) return { merged: false, why: e.message }
    throw e
  }
}

async function merge(opts: MergeOptions, early?: OpenedIndex): Promise<MergeOutcome> {
  const refuse = (why: string): never => {
    throw new Refused(why)
  }
  const timings: Record<string, number> = {}
  let mark = performance.now()
  const lap = (stage: string) => {
    const now = performance.now()
    timings[stage] = Math.round(now - mark)
    mark = now
  }
  let current: string | undefined
  try {
    current = resolveIndexDir(opts.out)
  } catch {
    current = undefined
  }
  const opened = early && early.dir === current ? early : await openPublished(opts.out)
  if (!opened) return refuse('no index is published')
  // ~0 when opened while the fetch ran.
  lap('open_index')
  const dir = opened.dir
  const state = opened.state ?? refuse('the published index keeps no merge state (built without a page store, or by an older builder)')
  if (state.builder !== BUILDER) refuse(`the published index was built by ${state.builder}, not ${BUILDER}`)
  if (state.page_store !== displayPath(opts.pageStore)) refuse(`the published index was built from the page store ${state.page_store}`)
  const sourceDirs = opts.sources ?? DEFAULT_SOURCE_DIRS
  const roots = sourceDirs.map(displayPath)
  if (JSON.stringify(roots) !== JSON.stringify(state.roots)) refuse('the published index was built from other sources besides the page store')
  if (sourcesDigest(sourceDirs) !== state.sources_digest) refuse('the sources besides the page store changed since the published index was built')
  if ((opts.skipBad ?? false) !== state.skip_bad) refuse(`the published index was built ${state.skip_bad ? 'with' : 'without'} --skip-bad`)

  // The digest first, as a build takes it: pages saved while this runs make the next update read them.
  const digest = pageStoreDigest(opts.pageStore)
  const folders = pageFolders(opts.pageStore)
  const gone = Object.keys(state.folders).filter((f) => !(f in folders))
  if (gone.length > 0) refuse(`${gone.length} sol folder(s) of the page store were removed (${gone.slice(0, 3).join(', ')})`)
  const changedFolders = Object.keys(folders).filter((f) => state.folders[f] !== folders[f])
  if (changedFolders.length === 0) refuse('no sol folder of the page store changed')

  const changed = new Set<string>()
  for (const f of changedFolders) {
    const key = groupOfFolder(f)
    if (!key) refuse(`${f} is not a sol folder`)
    if (state.groups[key!] && !state.groups[key!]!.pure) refuse(`${key} also holds records of other sources`)
    changed.add(key!)
  }
  // The changed sols' groups as read now; the sols the clock fit then moves are read with them.
  const first = readGroups(opts, [...changed], refuse)
  const groups: Record<string, SolGroup> = { ...state.groups }
  for (const key of changed) {
    if (first.groups[key]) groups[key] = first.groups[key]!
    else delete groups[key]
  }
  const rovers = new Set([...changed].map((k) => k.split('/')[0] as RoverSlug))
  const reread = new Set(changed)
  for (const rover of rovers) {
    const affected = clockRegions(rover, state.groups, groups, changed)
    if (affected === 'all') refuse(`the number of labelled sols of ${rover} crosses the clock fit's minimum, which moves every sol`)
    for (const key of affected) {
      if (!groups[key]!.pure) refuse(`the clock fit moves ${key}, which also holds records of other sources`)
      reread.add(key)
    }
  }
  const extra = [...reread].filter((k) => !changed.has(k))
  const read = extra.length > 0 ? readGroups(opts, [...reread], refuse) : first
  for (const key of reread) if (read.groups[key]) groups[key] = read.groups[key]!

  const clockLabels: ClockLabels = {}
  for (const rover of rovers) clockLabels[rover] = roverLabels(groups, rover)
  const files = read.files
  files.manifests = state.manifests
  files.timetables = state.timetables
  const normalised = normalizeSources(files, { skipBad: opts.skipBad, clockLabels })
  lap('read_sols')

  const manifest = opened.manifest ?? refuse('the published index has no readable manifest')
  const old = opened.photos!
  const keep = new Uint8Array(old.length)
  const freed: number[] = []
  // The sols read again as flags per rover code and sol: a key string per row cost ~1 s at 1.5 million.
  const rereadSols = ROVER_SLUGS.map((slug) => {
    const sols = [...reread].filter((k) => k.startsWith(`${slug}/`)).map((k) => Number(k.slice(slug.length + 1)))
    const flags = new Uint8Array(sols.length > 0 ? Math.max(...sols) + 1 : 0)
    for (const sol of sols) flags[sol] = 1
    return flags
  })
  for (let r = 0; r < old.length; r++) {
    const flags = rereadSols[old.rover[r]!]
    const sol = old.sol[r]!
    if (flags !== undefined && sol >= 0 && sol < flags.length && flags[sol] === 1) freed.push(old.id[r]!)
    else keep[r] = 1
  }
  const records = normalised.records
  // A record folding into (or claiming the v1 id of) a row of a sol not read again: refused.
  const nasaIds = new Set(records.map((r) => r.nasa_id))
  // Rows are compared by a hash of their bytes first: decoding every published nasa_id costs more than the merge.
  const enc = new TextEncoder()
  const nasaHashes = new Set(records.map((r) => enc.encode(r.nasa_id)).map((b) => byteHash(b, Math.max(0, b.length - HASHED_TAIL), b.length)))
  const stated = new Set(records.filter((r) => r.id! < ASSIGNED_ID_BASE).map((r) => r.id!))
  const text = new TextDecoder()
  // The assigned ids of the kept rows, sorted (a Map of them cost ~1 s at 1.5 million).
  const outside = new Int32Array(old.length)
  let outsideCount = 0
  const od = old.nasa_id.data
  const oo = old.nasa_id.offsets
  for (let r = 0; r < old.length; r++) {
    if (!keep[r]) continue
    const id = old.id[r]!
    if (stated.size > 0 && stated.has(id)) refuse(`v1 id ${id} of a record read again is the id of a photo of another sol`)
    if (nasaHashes.has(byteHash(od, Math.max(oo[r]!, oo[r + 1]! - HASHED_TAIL), oo[r + 1]!)) && nasaIds.has(text.decode(utf8At(old.nasa_id, r)))) refuse(`a record read again has the NASA image id ${text.decode(utf8At(old.nasa_id, r))} of a photo of another sol`)
    if (id >= ASSIGNED_ID_BASE) outside[outsideCount++] = id
  }
  const newIds = reassignIds(records, old, keep, outside.subarray(0, outsideCount).sort(), freed)

  const fresh = photoTableFromRecords(records, { consume: true })
  const table = concatRows(old, keep, fresh, newIds)
  const storeDisplay = `${state.page_store}/`
  const rereadFolders = new Set([...reread].map((k) => `${storeDisplay}${folderOf(k.split('/')[0]!, Number(k.split('/')[1]))}/`))
  const inReread = (p: string) => p.startsWith(storeDisplay) && rereadFolders.has(p.slice(0, p.lastIndexOf('/') + 1))
  const sources = mergeSources(manifest.sources, normalised.sources, storeDisplay, inReread)
  const next: MergeState = { ...state, folders, groups }
  lap('merge_rows')
  const result = await buildIndex({ out: opts.out, keep: opts.keep, progress: opts.progress, merged: { table, sources, pageStore: digest, state: next, traverses: opened.traverses } })
  for (const [k, v] of Object.entries(result.summary.timings)) if (k !== 'merge') timings[k] = v
  return { merged: true, result, sols: [...changed].sort(), reread: extra.sort(), timings }
}

/**
 * The published photo columns, as views over the file mapped from the page cache (the file was
 * just written or served: its pages are there, and a copy into fresh memory costs more than the
 * merge); a file too big for one mapping is read part by part.
 */
async function publishedPhotos(dir: string, manifest: Manifest): Promise<Published> {
  const rows = manifest.rows.photos
  const p = (await mappedTable(dir, manifest, FILES.photos, PHOTO_LAYOUT, rows)) as unknown as Published
  // The raw JSON in raw.bin (photos.arrow's `raw` all ""): mapped, as the server maps it.
  if (manifest.files[RAW_FILES.text]) p.raw = rawTextColumn(dir, manifest, p.raw, (await mappedTable(dir, manifest, RAW_FILES.ends, RAW_ENDS_LAYOUT, rows)).raw_end as Float64Array)
  return p
}

/** The published columns, whose raw JSON may be raw.bin's (offsets past 2 GiB). */
type Published = Omit<PhotoColumns, 'raw'> & { raw: TextColumn }

async function mappedTable(dir: string, manifest: Manifest, name: string, layout: ColumnLayout, rows: number): Promise<Record<string, unknown>> {
  const path = join(dir, name)
  const bytes = manifest.files[name]!.bytes
  if (bytes >= ONE_BUFFER_LIMIT) return await loadBatchedTable(path, layout, rows)
  const mapped = Bun.mmap(path, { shared: false })
  if (mapped.length !== bytes) throw new Error(`${path} is ${mapped.length} bytes, manifest.json says ${bytes}`)
  return columnsFromTable(path, tableFromIPC(mapped), layout, rows)
}

/** The pages of the given groups' folders, read as a build reads them, and their groups. */
function readGroups(opts: MergeOptions, keys: string[], refuse: (why: string) => never) {
  const paths = keys.sort().map((k) => join(opts.pageStore, folderOf(k.split('/')[0]!, Number(k.split('/')[1]))))
  const files = readSourceFiles(paths, { skipBad: opts.skipBad })
  if (files.waypoints.length || files.traverses.length || files.timetables.length || files.manifests.length) refuse('a page read again holds tables besides photos')
  const groups = solGroups(files, opts.pageStore)
  const wanted = new Set(keys)
  for (const [key, g] of Object.entries(groups)) {
    if (!wanted.has(key)) refuse(`a page read again holds records of ${key}, another sol`)
    if (!g.pure) refuse(`${key}: its records are not all in its own folder`)
  }
  return { files, groups }
}

/** Bytes at the end of a nasa_id hashed to compare it (a hash that matches is checked in full). */
const HASHED_TAIL = 24

/** Whether `sorted` (ascending) holds `v`. */
function sortedHas(sorted: Int32Array, v: number): boolean {
  const at = lowerBound(sorted, 0, sorted.length, v)
  return at < sorted.length && sorted[at] === v
}

/** FNV-1a over bytes [from, to). */
function byteHash(data: Uint8Array, from: number, to: number): number {
  let h = 0x811c9dc5
  for (let i = from; i < to; i++) h = Math.imul(h ^ data[i]!, 0x01000193)
  return h >>> 0
}

function utf8At(c: TextColumn, r: number): Uint8Array {
  return c.data.subarray(c.offsets[r]!, c.offsets[r + 1]!)
}

/**
 * Assigned ids as the full build gives them (assign-ids.ts: in ascending key order, each takes
 * the first free id from its hash upward). Only a run of taken ids holding a new record's hash or
 * a freed id can change: every row in such a run is assigned again, the runs' own rows with
 * them, in key order against the ids taken outside the runs. Returns the ids of kept rows that
 * change (row → id).
 */
function reassignIds(records: Array<{ id?: number; nasa_id: string; id_key?: string }>, old: Published, keep: Uint8Array, outside: Int32Array, freed: number[]): Map<number, number> {
  const next = (id: number) => (id + 1 >= 2 ** 31 ? ASSIGNED_ID_BASE : id + 1)
  const assigned = records.filter((r) => r.id! >= ASSIGNED_ID_BASE)
  const key = (r: { nasa_id: string; id_key?: string }) => r.id_key ?? r.nasa_id
  const taken = (id: number) => sortedHas(outside, id)
  const freedSet = new Set(freed)
  const rerunIds = new Set<number>()
  const starts = [...assigned.map((r) => assignedIdFor(key(r))), ...freed.filter((id) => id >= ASSIGNED_ID_BASE)]
  for (const start of starts) {
    for (let s = start; taken(s) || freedSet.has(s); s = next(s)) if (taken(s)) rerunIds.add(s)
  }
  // The kept rows holding those ids: one pass over the ids.
  const rerun = new Map<number, { row: number; key: string }>()
  if (rerunIds.size > 0) for (let r = 0; r < old.length; r++) if (keep[r] && rerunIds.has(old.id[r]!)) rerun.set(r, { row: r, key: keyOfRow(old, r) })
  const todo: Array<{ key: string; set: (id: number) => void }> = assigned.map((r) => ({ key: key(r), set: (id: number) => (r.id = id) }))
  const changed = new Map<number, number>()
  for (const { row, key: k } of rerun.values()) todo.push({ key: k, set: (id) => { if (id !== old.id[row]) changed.set(row, id) } })
  todo.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
  // Taken: the kept rows' ids but the runs' (rerunIds), and each id given here.
  const given = new Set<number>()
  const fixed = { has: (id: number) => given.has(id) || (taken(id) && !rerunIds.has(id)), add: (id: number) => given.add(id) }
  for (const t of todo) {
    let id = assignedIdFor(t.key)
    while (fixed.has(id)) id = next(id)
    fixed.add(id)
    t.set(id)
  }
  return changed
}

/** The key a row's id was assigned by: the feed's image id as stated when the served nasa_id is another form of it (m2020-raw-images.ts). */
function keyOfRow(p: Published, row: number): string {
  const text = new TextDecoder()
  const nasaId = text.decode(utf8At(p.nasa_id, row))
  try {
    const raw = JSON.parse(text.decode(utf8At(p.raw, row))) as { imageid?: unknown }
    if (typeof raw.imageid === 'string' && raw.imageid !== nasaId && splitProductVersion(raw.imageid).id === nasaId) return raw.imageid
  } catch {
    // A row whose raw JSON is not a feed record: its nasa_id is its key.
  }
  return nasaId
}

/**
 * The kept rows of the published columns and the new table's rows as one photo table, in the
 * default row order (photo-columns.ts: the taken key descending, then id ascending), so the
 * encoder finds the table in order and copies nothing. The published rows are in that order
 * already; the new rows, and the kept rows whose id the new ones moved (newIds: the id is the
 * order's tie-break, so such a row may move among the rows of its taken key), are ordered alone
 * and merged in as a second sorted run.
 */
function concatRows(old: Published, keep: Uint8Array, fresh: PhotoColumns, newIds: Map<number, number>): PhotoTable {
  const kept: number[] = []
  for (let r = 0; r < old.length; r++) if (keep[r] && !newIds.has(r)) kept.push(r)
  const m = fresh.length
  const oldKey = takenSortColumn(old.date_taken_utc, old.earth_date, old.length)
  const freshKey = takenSortColumn(fresh.date_taken_utc, fresh.earth_date, m)
  // The second run: new row j as -j - 1, a kept row whose id changed as its published row.
  const moved = [...newIds.keys()]
  const runKey = new Float64Array(m + moved.length)
  const runId = new Int32Array(m + moved.length)
  const runSrc = new Int32Array(m + moved.length)
  for (let j = 0; j < m; j++) {
    runKey[j] = freshKey[j]!
    runId[j] = fresh.id[j]!
    runSrc[j] = -j - 1
  }
  moved.forEach((r, i) => {
    runKey[m + i] = oldKey[r]!
    runId[m + i] = newIds.get(r)!
    runSrc[m + i] = r
  })
  const run = defaultOrder(runKey, runId, runKey.length)
  // src[k] >= 0: published row; < 0: new row -src[k] - 1.
  const src = new Int32Array(kept.length + run.length)
  // Descending by the taken key, unknown (NaN) last, then ascending id: the encoder's order.
  const before = (ka: number, ia: number, kb: number, ib: number) => (ka !== ka ? kb !== kb && ia < ib : kb !== kb || ka > kb || (ka === kb && ia < ib))
  // Where the kept rows whose id changed land (their ids are set below).
  const movedAt: number[] = []
  let i = 0
  let j = 0
  let k = 0
  while (i < kept.length || j < run.length) {
    if (j < run.length && (i >= kept.length || !before(oldKey[kept[i]!]!, old.id[kept[i]!]!, runKey[run[j]!]!, runId[run[j]!]!))) {
      const s = runSrc[run[j++]!]!
      if (s >= 0) movedAt.push(k)
      src[k++] = s
    } else src[k++] = kept[i++]!
  }
  const n = src.length
  const out: Record<string, unknown> = { length: n }
  const a = old as unknown as Record<string, unknown>
  const b = fresh as unknown as Record<string, unknown>
  // Raw JSON past the limit goes to raw.bin, as a full build of the same pages writes it; the
  // published texts (raw.bin mapped, or inline) are copied there in order, never gathered here.
  // Under the limit they stay photos.arrow's column, written there from the same two sources.
  const spill = MergedRaw.bytesOf(old.raw, fresh.raw, src) > rawInlineBytes()
  const raw = new MergedRaw(old.raw, fresh.raw, src, !spill)
  out.rawSpill = raw
  // The derive stage derives the new rows alone (derive/kept-rows.ts), the kept rows' sequence
  // codes holding their served sequence ids.
  out.kept = keptRows(old, keep, fresh, src, newIds)
  const runs = rowRuns(src)
  const pieces: Record<string, MergedRaw> = {}
  for (const [name, kind] of PHOTO_LAYOUT) {
    if (name === 'raw') out[name] = spill ? { data: new Uint8Array(0), offsets: new Int32Array(n + 1) } : raw.column()
    else if (kind === 'utf8' && PIECED.has(name) && n <= BATCH_ROWS) {
      // Like the raw JSON: written from the published file and the new rows, never gathered.
      pieces[name] = new MergedRaw(a[name] as TextColumn, b[name] as TextColumn, src, true)
      out[name] = pieces[name].column()
    } else if (kind === 'utf8') out[name] = concatUtf8(a[name] as TextColumn, b[name] as TextColumn, src)
    else if (name === 'sequence') out[name] = concatDict(old.sequence, fresh.sequence, src)
    else if (kind === 'dict' || kind === 'dict16') out[name] = concatDict(a[name] as DictColumn, b[name] as DictColumn, src)
    else {
      const x = a[name] as Float64Array
      const y = b[name] as Float64Array
      const c = new (y.constructor as Float64ArrayConstructor)(n)
      // Runs of consecutive published rows copied in one piece (a new sol: a handful of runs).
      for (let r = 0; r < runs.length; r += 3) {
        const [k, s, len] = [runs[r]!, runs[r + 1]!, runs[r + 2]!]
        if (s >= 0) c.set(x.subarray(s, s + len), k)
        else c[k] = y[-s - 1]!
      }
      out[name] = c
    }
  }
  out.textPieces = pieces
  const id = out.id as Int32Array
  for (const k of movedAt) id[k] = newIds.get(src[k]!)!
  return out as unknown as PhotoTable
}

/**
 * Which merged rows are new, and the clock of every photo added or removed (derive/kept-rows.ts),
 * and of every kept photo whose id changed: a stereo partner is held by id, and the id breaks
 * clock ties in the pairing, so the photos near one are paired again as near one added.
 */
function keptRows(old: Published, keep: Uint8Array, fresh: PhotoColumns, src: Int32Array, newIds: Map<number, number>): KeptRows {
  const isFresh = new Uint8Array(src.length)
  for (let k = 0; k < src.length; k++) if (src[k]! < 0) isFresh[k] = 1
  const changed: number[] = []
  for (let j = 0; j < fresh.length; j++) if (!Number.isNaN(fresh.sclk[j]!)) changed.push(fresh.sclk[j]!)
  for (let r = 0; r < old.length; r++) if (!keep[r] && !Number.isNaN(old.sclk[r]!)) changed.push(old.sclk[r]!)
  for (const r of newIds.keys()) if (!Number.isNaN(old.sclk[r]!)) changed.push(old.sclk[r]!)
  return { fresh: isFresh, changedSclk: Float64Array.from(changed).sort() }
}

/**
 * Text columns no stage reads between the merge and the write but for their lengths (the image
 * URLs, the Mars time: ~0.6 KB a row, 0.9 GB at 1.5 million), so each is written from the
 * published file and the new rows like the raw JSON (merged-raw.ts) instead of gathered into
 * fresh memory. The nasa_id is read (ids, stereo pairs, access paths): gathered. (A table past
 * BATCH_ROWS is written in record batches, slices the writer cannot hand over whole: gathered.)
 */
const PIECED = new Set(['date_taken_mars', 'image_small', 'image_medium', 'image_large', 'image_full'])

/**
 * The merged rows as runs, three numbers each (first row, source row, rows): a run of consecutive
 * published rows (source >= 0), or one new row (source < 0, length 1).
 */
function rowRuns(src: Int32Array): number[] {
  const runs: number[] = []
  for (let k = 0; k < src.length; ) {
    const s = src[k]!
    let e = k + 1
    if (s >= 0) while (e < src.length && src[e] === s + (e - k)) e++
    runs.push(k, s, e - k)
    k = e
  }
  return runs
}

function concatUtf8(x: TextColumn, y: TextColumn, src: Int32Array): Utf8Column {
  const n = src.length
  const offsets = new Int32Array(n + 1)
  const xo = x.offsets
  const yo = y.offsets
  let bytes = 0
  for (let k = 0; k < n; k++) {
    const s = src[k]!
    bytes += s >= 0 ? xo[s + 1]! - xo[s]! : yo[-s]! - yo[-s - 1]!
    offsets[k + 1] = bytes
  }
  const data = new Uint8Array(bytes)
  // Runs of consecutive published rows are copied in one piece.
  for (let k = 0; k < n; ) {
    const s = src[k]!
    if (s < 0) {
      data.set(y.data.subarray(yo[-s - 1]!, yo[-s]!), offsets[k]!)
      k++
      continue
    }
    let e = k + 1
    while (e < n && src[e] === src[e - 1]! + 1) e++
    data.set(x.data.subarray(xo[s]!, xo[src[e - 1]! + 1]!), offsets[k]!)
    k = e
  }
  return { data, offsets }
}

function concatDict(x: DictColumn, y: DictColumn, src: Int32Array): DictColumn {
  const dict = [...x.dict]
  const at = new Map(dict.map((s, i) => [s, i]))
  const map = y.dict.map((s) => {
    let i = at.get(s)
    if (i === undefined) {
      i = dict.length
      dict.push(s)
      at.set(s, i)
    }
    return i
  })
  const n = src.length
  const codes = new Int32Array(n)
  for (let k = 0; k < n; k++) {
    const s = src[k]!
    codes[k] = s >= 0 ? x.codes[s]! : map[y.codes[-s - 1]!]!
  }
  return { codes, dict }
}

/** The manifest's sources with the entries of the folders read again replaced by this read's, the page store's in path order as a build lists them. */
function mergeSources(before: readonly ManifestSource[], read: readonly ManifestSource[], storeDisplay: string, inReread: (path: string) => boolean): ManifestSource[] {
  const others = before.filter((s) => !s.path.startsWith(storeDisplay))
  const pages = [...before.filter((s) => s.path.startsWith(storeDisplay) && !inReread(s.path)), ...read].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
  return [...others, ...pages]
}
