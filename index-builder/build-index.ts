import { existsSync, rmSync } from 'node:fs'
import { pageStoreDigest, type PageStoreDigest } from './fetch/page-store-digest'
import { DEFAULT_SOURCE_DIRS, displayPath } from './sources/list-files'
import { join } from 'node:path'
import { ROVER_SLUGS, type RoverSlug } from '../src/catalog/rovers'
import { JOURNEY_STOP_LAYOUT, LOCATION_LAYOUT, PANORAMA_LAYOUT, PHOTO_LAYOUT, SOL_MANIFEST_LAYOUT, TRAVERSE_LAYOUT } from '../src/store/column-layout'
import { FILES, type Manifest, type ManifestSource, type PhotoColumns, type TraverseColumns } from '../src/store/schema'
import { deriveLocations } from './derive/locations'
import { derivePanoramas } from './derive/panoramas'
import { deriveSolManifest, nasaManifestFacts } from './derive/sol-manifest'
import type { RoverManifest } from './sources/v1-manifest'
import { deriveJourneyStops } from './derive/journey-stops'
import { deriveTraverses, type TraverseBuild } from './derive/traverses'
import { deriveSun } from './sun/derive-sun'
import { addRelatedColumns } from './derive/related/related-columns'
import { writeAccessPaths, type AccessPathInput } from './encode/access-paths'
import { collectYoung, dropColumns, releaseGarbage, releaseMemory } from './encode/release-memory'
import { batchedIfHuge, tableFromColumns } from './encode/arrow-table'
import { BUILDER, contentVersion, manifestJson, readManifest } from './encode/manifest'
import { encodePhotoColumns } from './encode/photo-columns'
import { photoTableFromRecords } from './encode/photo-table'
import { rawInlineBytes, RawStash, writeRawFiles, type PhotoTable } from './encode/raw-file'
import { normalizeSources } from './normalize/normalize-sources'
import { CURRENT, publish, stagingDir } from './encode/publish'
import { appendToLedger, giveLedgerTo, newIds, previousLedger, writeLedger } from './encode/ledger'
import { writeArrowFile, writeDurably } from './encode/write-arrow-file'
import { StagingWrites } from './encode/staging-writes'
import { createProgress, type Progress } from './progress'
import { readSourceFiles, type Waypoint } from './sources/read-sources'
import type { DerivationErrors } from './normalize/measure-derivations'
import { generateSynthetic } from './sources/synthetic'
import { photoCoverage, type BuildSummary } from './summary'
import { pageFolders, solGroups, sourcesDigest, writeMergeState, type MergeState } from './merge/merge-state'

/**
 * The index build, start to end (style.md: the data's journey), one stage after the other:
 *   sources    the real files read into photo drafts and tables (sources/read-sources.ts),
 *              or the synthetic generator's photo table (sources/synthetic.ts);
 *   normalize  drafts -> one PhotoRecord per image (normalize/normalize-sources.ts) -> a photo
 *              table in record order (encode/photo-table.ts); the synthetic table is already one;
 *   encode     the one column encoder for both: PhotoColumns in the default order
 *              (encode/photo-columns.ts);
 *   derive     locations, panoramas, sol manifest, traverses, journey stops from the columns;
 *              the sun's position per photo (stated, else Mars24 at the rover's place on the traverse);
 *   write      Arrow IPC files streamed to a staging folder inside `out`, then the access paths
 *              from the sort-key columns alone (the others are released first), the manifest;
 *   publish    atomically as `out/<version>` with `out/current` pointing at it.
 * Nothing under `out/current` is touched until every file is written and synced. Memory: the
 * photo table is held once in typed arrays (never one object per photo for the synthetic
 * catalogue), encoded column by column, and no file is assembled in memory.
 */
export interface BuildOptions {
  out: string
  /** Source files or folders (real build); default: the real data folder. */
  sources?: string[]
  /** Build the synthetic catalogue instead of reading sources. */
  synthetic?: { seed?: number; scale?: number }
  skipBad?: boolean
  /** true: draw a progress bar on stderr; or a Progress of the caller's. */
  progress?: boolean | Progress
  /** Versions kept in `out` (the current one included). Default 2. */
  keep?: number
  /**
   * A page store (FEED_DIR) read with the sources: its digest, taken before it is read, goes into
   * the manifest, so `npm run update` knows which pages the published index holds.
   */
  pageStore?: string
  /** Publish even 0 photos, or more than MAX_DROP fewer photos than the index served at `out/current`. */
  force?: boolean
  /** An update's merge (merge/merge-update.ts): the photo table and tables it made, instead of reading sources. */
  merged?: MergedInput
  /** Raw JSON bytes kept in photos.arrow before they go to raw.bin (encode/raw-file.ts); default BUILD_RAW_INLINE_BYTES or RAW_INLINE_BYTES. */
  rawInlineBytes?: number
}

/** What an update's merge hands the build's later stages (encode onwards run as for any build). */
export interface MergedInput {
  table: PhotoTable
  sources: ManifestSource[]
  pageStore: PageStoreDigest
  state: MergeState
  /**
   * The published traverses.arrow (its columns, mapped; its path and manifest entry): made from the
   * waypoints alone, which a merge never changes, so it is linked into the new version as it is.
   */
  traverses?: { columns: TraverseColumns; path: string; entry: Manifest['files'][string] }
}

/** The largest share of the served index's photos a build may lose without `force` (decisions.md, builder safety). */
export const MAX_DROP = 0.1

/** Why publishing `photos` photos over the index served at `out` needs --force, or undefined when it does not. */
export function refusalToPublish(out: string, photos: number): string | undefined {
  if (photos === 0) return 'the build holds 0 photos; nothing would be served (--force publishes it anyway)'
  const served = readManifest(join(out, CURRENT))
  const before = served?.rows.photos
  if (before !== undefined && photos < before * (1 - MAX_DROP)) {
    return `the build holds ${photos} photos, ${(100 * (1 - photos / before)).toFixed(1)}% fewer than the ${before} of the served index ${served!.version} (more than ${MAX_DROP * 100}% fewer needs --force)`
  }
  return undefined
}

export interface BuildResult {
  version: string
  dir: string
  manifest: Manifest
  ms: number
  summary: BuildSummary
}

export async function buildIndex(opts: BuildOptions): Promise<BuildResult> {
  const started = performance.now()
  const progress = typeof opts.progress === 'object' ? opts.progress : createProgress(opts.progress ?? false)
  const timings: Record<string, number> = {}
  let mark = performance.now()
  // Bytes of photo table a stage may leave behind (~256 a photo), known after the sources stage.
  let tableBytes = 0
  const lap = (stage: string) => {
    // Each stage leaves big typed arrays behind (source columns, sort temporaries): collected
    // now, so the next stage does not stack on them (peak memory, not speed, bounds a big build).
    releaseMemory(tableBytes)
    const now = performance.now()
    timings[stage] = Math.round(now - mark)
    mark = now
  }

  let table: PhotoTable
  let sources: ManifestSource[]
  let skipped: BuildSummary['skipped'] = []
  let derived: Record<string, number> = {}
  let derivationErrors: DerivationErrors = {}
  let kind: Manifest['kind'] = 'real'
  let seed: number | undefined
  let nasaManifests: RoverManifest[] = []
  let waypoints: Waypoint[] = []
  let pageStore: PageStoreDigest | undefined
  let mergeState: MergeState | undefined
  if (opts.merged) {
    ;({ table, sources, pageStore, state: mergeState } = opts.merged)
    nasaManifests = mergeState.manifests
    waypoints = mergeState.waypoints
    tableBytes = 256 * table.length
    lap('merge')
  } else if (opts.synthetic) {
    kind = 'synthetic'
    const cat = generateSynthetic({ ...opts.synthetic, onProgress: (d, t, s) => progress.update(d, t, `synthetic ${s}`) })
    table = cat.photos
    sources = cat.sources
    seed = cat.seed
    waypoints = cat.waypoints
    tableBytes = 256 * table.length
    lap('generate')
  } else {
    if (opts.pageStore) pageStore = pageStoreDigest(opts.pageStore)
    const folders = opts.pageStore ? { pages: pageFolders(opts.pageStore), sources: sourcesDigest(opts.sources ?? DEFAULT_SOURCE_DIRS) } : undefined
    const paths = opts.pageStore && existsSync(opts.pageStore) ? [...(opts.sources ?? DEFAULT_SOURCE_DIRS), opts.pageStore] : opts.sources
    // Records' raw JSON waits in a stash beside the versions, not in memory (encode/raw-file.ts).
    const stash = new RawStash(opts.out)
    try {
      // A full collection every sixteenth of the files: each page leaves its text and parsed
      // objects behind, and by the engine's own schedule that garbage grew to GBs on top of the
      // records (a 1.5M-record build peaked at 7 GB, its live records under 3). Not with purging
      // off, where the young collections below were enough (release-memory.ts releaseGarbage).
      const collectEvery = (t: number) => (t >= 1024 ? Math.ceil(t / 16) : Infinity)
      // A young collection every few files frees each page's garbage while it is young and
      // cheap to collect (release-memory.ts collectYoung).
      const YOUNG_EVERY = 10
      const files = readSourceFiles(paths, {
        skipBad: opts.skipBad,
        rawStash: stash,
        onProgress: (d, t) => {
          progress.update(d, t, 'read')
          if (d % YOUNG_EVERY === 0) collectYoung()
          if (d % collectEvery(t) === 0) releaseGarbage(1 << 30)
        },
      })
      tableBytes = 1024 * files.drafts.length
      lap('read')
      // What an update needs to merge new pages into this index later (merge/merge-state.ts).
      const groups = folders ? solGroups(files, opts.pageStore!) : undefined
      const read = normalizeSources(files, { skipBad: opts.skipBad })
      // The drafts hold the same records: let go here, so the table below can free each record as it fills.
      files.drafts.length = 0
      sources = read.sources
      skipped = read.skipped.map((s) => ({ file: s.file, record: String(s.record), reason: s.reason }))
      derived = read.derived
      derivationErrors = read.checks.derivationErrors
      nasaManifests = read.manifests
      waypoints = read.waypoints
      if (groups) mergeState = { schema: 1, builder: BUILDER, page_store: displayPath(opts.pageStore!), roots: (opts.sources ?? DEFAULT_SOURCE_DIRS).map(displayPath), sources_digest: folders!.sources, skip_bad: opts.skipBad ?? false, folders: folders!.pages, groups, manifests: read.manifests, timetables: read.timetables, waypoints: read.waypoints }
      // Raw JSON past RAW_INLINE_BYTES stays in the stash, to become raw.bin; else it is in the table now.
      table = photoTableFromRecords(read.records, { consume: true, rawStash: stash, rawInlineBytes: opts.rawInlineBytes ?? rawInlineBytes() })
      // Inline, the texts are in the table now; spilled, the table owns the stash.
      if (!table.rawSpill) stash.discard()
    } catch (e) {
      stash.discard()
      throw e
    }
    tableBytes = 256 * table.length
    lap('normalize')
  }
  const rawSpill = table.rawSpill
  try {
    return await assemble(opts, table, { started, progress, timings, lap, kind, seed, sources, skipped, derived, derivationErrors, nasaManifests, waypoints, pageStore, mergeState })
  } finally {
    rawSpill?.discard()
  }
}

interface Gathered {
  started: number
  progress: Progress
  timings: Record<string, number>
  lap: (stage: string) => void
  kind: Manifest['kind']
  seed: number | undefined
  sources: ManifestSource[]
  skipped: BuildSummary['skipped']
  derived: Record<string, number>
  derivationErrors: DerivationErrors
  nasaManifests: RoverManifest[]
  waypoints: Waypoint[]
  pageStore: PageStoreDigest | undefined
  mergeState: MergeState | undefined
}

/** Encode, derive, write and publish a photo table read or generated by buildIndex. */
async function assemble(opts: BuildOptions, table: PhotoTable, g: Gathered): Promise<BuildResult> {
  const { started, progress, timings, lap, kind, seed, sources, skipped, derived, derivationErrors, nasaManifests, waypoints, pageStore, mergeState } = g
  progress.update(0, 1, 'encode')
  let photos: PhotoTable = encodePhotoColumns(table)
  lap('encode')

  if (!opts.force) {
    const why = refusalToPublish(opts.out, photos.length)
    if (why) {
      progress.done()
      throw new PublishRefused(why)
    }
  }

  progress.update(0, 1, 'derive')
  const locations = deriveLocations(photos)
  const panoramas = derivePanoramas(photos)
  const solManifest = deriveSolManifest(photos, nasaManifests)
  const linkedTraverses = opts.merged?.traverses
  const traverses: TraverseBuild = linkedTraverses ? { columns: linkedTraverses.columns, report: [] } : deriveTraverses(waypoints)
  const journeyStops = deriveJourneyStops(photos, traverses.columns)
  // An update's merge derives its new rows alone (derive/kept-rows.ts).
  const sun = deriveSun(photos, traverses.columns, photos.kept)
  addRelatedColumns(photos, traverses.columns, photos.kept)
  lap('derive')

  // The photos new to `out` (src/ledger/ledger-file.ts), while the id column is still held.
  const ledgerBefore = previousLedger(opts.out)
  const arrived = newIds(ledgerBefore, photos.id)

  const staging = stagingDir(opts.out)
  // Each file's digest is taken as it is written, not read back in the digest stage.
  const digests = new StagingWrites()
  try {
    progress.update(0, 4, 'write photos')
    const rawInline = photos.rawSpill?.inline ? photos.rawSpill : undefined
    // Text columns an update's merge never gathered: written from the published file and the new rows.
    const pieced = [...(rawInline ? [rawInline] : []), ...Object.values(photos.textPieces ?? {})]
    await writeArrowFile(join(staging, FILES.photos), batchedIfHuge(tableFromColumns(PHOTO_LAYOUT, photos as never, photos.length)), pieced.map((t) => ({ buffer: t.placeholder!, write: (put) => t.write!(put) })), digests)
    const rawInFile = photos.rawSpill && !rawInline ? await writeRawFiles(staging, photos.rawSpill, digests) : undefined
    progress.update(1, 4, 'write tables')
    await writeArrowFile(join(staging, FILES.locations), tableFromColumns(LOCATION_LAYOUT, locations as never, locations.length), [], digests)
    await writeArrowFile(join(staging, FILES.panoramas), tableFromColumns(PANORAMA_LAYOUT, panoramas as never, panoramas.length), [], digests)
    await writeArrowFile(join(staging, FILES.solManifest), tableFromColumns(SOL_MANIFEST_LAYOUT, solManifest as never, solManifest.length), [], digests)
    if (linkedTraverses) digests.link(linkedTraverses.path, join(staging, FILES.traverses), linkedTraverses.entry)
    else await writeArrowFile(join(staging, FILES.traverses), tableFromColumns(TRAVERSE_LAYOUT, traverses.columns as never, traverses.columns.length), [], digests)
    await writeArrowFile(join(staging, FILES.journeyStops), tableFromColumns(JOURNEY_STOP_LAYOUT, journeyStops as never, journeyStops.length), [], digests)
    const coverage = photoCoverage(photos)
    if (rawInFile !== undefined) coverage.raw = rawInFile
    const perRover = Object.fromEntries(ROVER_SLUGS.map((s) => [s, 0])) as Record<RoverSlug, number>
    for (let i = 0; i < photos.length; i++) perRover[ROVER_SLUGS[photos.rover[i]!]!]++
    const rows = photos.length
    lap('write')
    progress.update(2, 4, 'access paths')
    // Only the sort keys stay: the strings, coordinates and URLs (most of the bytes) are released.
    let keys: AccessPathInput | undefined = sortKeys(photos)
    const p = photos
    dropColumns(p.date_taken_mars, p.sample_type, p.coord_x, p.coord_y, p.coord_z, p.sclk, p.image_dir, p.image_small, p.image_medium, p.image_large, p.image_full, p.title, p.caption, p.credit, p.raw)
    dropColumns(p.lat, p.lon, p.stereo_partner, p.sequence)
    photos = undefined as never
    await writeAccessPaths(staging, keys, digests)
    const k = keys
    dropColumns(k.id, k.rover, k.camera, k.nasa_id, k.sol, k.earth_date, k.date_taken_utc, k.mars_time_ms, k.site, k.drive, k.width, k.height, k.mast_azimuth, k.mast_elevation, k.sun_elevation)
    keys = undefined
    lap('access_paths')
    progress.update(3, 4, 'digest')
    const files = await digests.files(staging)
    const nasa = nasaManifestFacts(nasaManifests)
    const version = contentVersion(files, nasa)
    const manifest: Manifest = {
      schema_version: 1,
      version,
      kind,
      built_at: new Date().toISOString(),
      builder: BUILDER,
      ...(seed !== undefined ? { seed } : {}),
      rows: { photos: rows, locations: locations.length, panoramas: panoramas.length, sol_manifest: solManifest.length, traverse_points: traverses.columns.length, journey_stops: journeyStops.length },
      sources,
      ...(pageStore ? { page_store: pageStore } : {}),
      ...(nasa ? { nasa_manifests: nasa } : {}),
      files,
    }
    writeDurably(join(staging, FILES.manifest), new TextEncoder().encode(manifestJson(manifest)))
    // After the digest: the ledger is not content (a rebuild of the same pages is the same
    // version and keeps every added_at), it travels with the version folder.
    const ledger = appendToLedger(ledgerBefore, arrived, Date.now())
    await writeLedger(staging, ledger)
    if (mergeState) writeMergeState(staging, mergeState)
    lap('digest')
    const published = publish(opts.out, staging, version, opts.keep ?? 2)
    if (published.reused) await giveLedgerTo(published.dir, ledger)
    if (published.reused && mergeState) writeMergeState(published.dir, mergeState)
    await writeLedger(opts.out, ledger)
    lap('publish')
    progress.done()
    const ms = Math.round(performance.now() - started)
    return {
      version,
      dir: published.dir,
      manifest,
      ms,
      summary: {
        kind,
        version,
        dir: published.dir,
        reused: published.reused,
        removed: published.removed,
        rows: manifest.rows,
        perRover,
        sources,
        skipped,
        coverage,
        derived,
        derivationErrors,
        files,
        seed,
        timings,
        traverses: traverses.report,
        sun,
      },
    }
  } catch (e) {
    progress.done()
    rmSync(staging, { recursive: true, force: true })
    throw e
  }
}

/** A build that is complete but would take (almost) everything away from the users: not published. */
export class PublishRefused extends Error {
  constructor(reason: string) {
    super(`not published: ${reason}`)
    this.name = 'PublishRefused'
  }
}

function sortKeys(p: PhotoColumns): AccessPathInput {
  const { length, id, rover, camera, nasa_id, sol, earth_date, date_taken_utc, mars_time_ms, site, drive, width, height, mast_azimuth, mast_elevation, sun_elevation } = p
  return { length, id, rover, camera, nasa_id, sol, earth_date, date_taken_utc, mars_time_ms, site, drive, width, height, mast_azimuth, mast_elevation, sun_elevation }
}
