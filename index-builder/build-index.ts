import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { ROVER_SLUGS, type RoverSlug } from '../src/catalog/rovers'
import { JOURNEY_STOP_LAYOUT, LOCATION_LAYOUT, PANORAMA_LAYOUT, PHOTO_LAYOUT, SOL_MANIFEST_LAYOUT, TRAVERSE_LAYOUT } from '../src/store/column-layout'
import { FILES, type Manifest, type ManifestSource, type PhotoColumns } from '../src/store/schema'
import { deriveLocations } from './derive/locations'
import { derivePanoramas } from './derive/panoramas'
import { deriveSolManifest } from './derive/sol-manifest'
import type { RoverManifest } from './sources/v1-manifest'
import { deriveJourneyStops } from './derive/journey-stops'
import { deriveTraverses } from './derive/traverses'
import { writeAccessPaths } from './encode/access-paths'
import { tableFromColumns } from './encode/arrow-table'
import { BUILDER, contentVersion, digestFiles, manifestJson, readManifest } from './encode/manifest'
import { photoColumnsFromRecords } from './encode/photo-columns'
import { CURRENT, publish, stagingDir } from './encode/publish'
import { writeArrowFile, writeDurably } from './encode/write-arrow-file'
import { createProgress, type Progress } from './progress'
import { readSources, type Waypoint } from './sources/read-sources'
import type { DerivationErrors } from './normalize/measure-derivations'
import { generateSynthetic } from './sources/synthetic'
import { photoCoverage, type BuildSummary } from './summary'

/**
 * The index build, start to end (style.md: the data's journey):
 *   records (real sources, or the synthetic generator) -> PhotoColumns in the default order
 *   -> locations and panoramas derived -> Arrow IPC files + access paths + manifest in a staging
 *   folder inside `out` -> published atomically as `out/<version>` with `out/current` pointing at it.
 * Nothing under `out/current` is touched until every file is written and synced.
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
  /** Publish even 0 photos, or more than MAX_DROP fewer photos than the index served at `out/current`. */
  force?: boolean
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
  const lap = (stage: string) => {
    const now = performance.now()
    timings[stage] = Math.round(now - mark)
    mark = now
  }

  let photos: PhotoColumns
  let sources: ManifestSource[]
  let skipped: BuildSummary['skipped'] = []
  let derived: Record<string, number> = {}
  let derivationErrors: DerivationErrors = {}
  let kind: Manifest['kind'] = 'real'
  let seed: number | undefined
  let nasaManifests: RoverManifest[] = []
  let waypoints: Waypoint[] = []
  if (opts.synthetic) {
    kind = 'synthetic'
    const cat = generateSynthetic({ ...opts.synthetic, onProgress: (d, t, s) => progress.update(d, t, `synthetic ${s}`) })
    photos = cat.photos
    sources = cat.sources
    seed = cat.seed
    lap('generate')
  } else {
    const read = await readSources(opts.sources, { skipBad: opts.skipBad, onProgress: (d, t) => progress.update(d, t, 'read') })
    sources = read.sources
    skipped = read.skipped.map((s) => ({ file: s.file, record: String(s.record), reason: s.reason }))
    derived = read.derived
    derivationErrors = read.checks.derivationErrors
    nasaManifests = read.manifests
    waypoints = read.waypoints
    lap('read')
    photos = photoColumnsFromRecords(read.records)
    lap('encode')
  }

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
  const traverses = deriveTraverses(waypoints)
  const journeyStops = deriveJourneyStops(photos, traverses.columns)
  lap('derive')

  const staging = stagingDir(opts.out)
  try {
    progress.update(0, 4, 'write photos')
    writeArrowFile(join(staging, FILES.photos), tableFromColumns(PHOTO_LAYOUT, photos as never, photos.length))
    progress.update(1, 4, 'write tables')
    writeArrowFile(join(staging, FILES.locations), tableFromColumns(LOCATION_LAYOUT, locations as never, locations.length))
    writeArrowFile(join(staging, FILES.panoramas), tableFromColumns(PANORAMA_LAYOUT, panoramas as never, panoramas.length))
    writeArrowFile(join(staging, FILES.solManifest), tableFromColumns(SOL_MANIFEST_LAYOUT, solManifest as never, solManifest.length))
    writeArrowFile(join(staging, FILES.traverses), tableFromColumns(TRAVERSE_LAYOUT, traverses.columns as never, traverses.columns.length))
    writeArrowFile(join(staging, FILES.journeyStops), tableFromColumns(JOURNEY_STOP_LAYOUT, journeyStops as never, journeyStops.length))
    lap('write')
    progress.update(2, 4, 'access paths')
    await writeAccessPaths(staging, photos)
    lap('access_paths')
    progress.update(3, 4, 'digest')
    const files = digestFiles(staging)
    const version = contentVersion(files)
    const manifest: Manifest = {
      schema_version: 1,
      version,
      kind,
      built_at: new Date().toISOString(),
      builder: BUILDER,
      ...(seed !== undefined ? { seed } : {}),
      rows: { photos: photos.length, locations: locations.length, panoramas: panoramas.length, sol_manifest: solManifest.length, traverse_points: traverses.columns.length, journey_stops: journeyStops.length },
      sources,
      files,
    }
    writeDurably(join(staging, FILES.manifest), new TextEncoder().encode(manifestJson(manifest)))
    lap('digest')
    const published = publish(opts.out, staging, version, opts.keep ?? 2)
    lap('publish')
    progress.done()
    const perRover = Object.fromEntries(ROVER_SLUGS.map((s) => [s, 0])) as Record<RoverSlug, number>
    for (let i = 0; i < photos.length; i++) perRover[ROVER_SLUGS[photos.rover[i]!]!]++
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
        coverage: photoCoverage(photos),
        derived,
        derivationErrors,
        files,
        seed,
        timings,
        traverses: traverses.report,
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
