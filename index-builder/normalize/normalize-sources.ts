import type { RoverSlug } from '../../src/catalog/rovers'
import type { ManifestSource } from '../../src/store/schema'
import { crossCheckManifests, type ManifestChecks } from '../sources/cross-check-manifests'
import { readSourceFiles, type MerTimetableRow, type ReadOptions, type SourceFiles, type Waypoint } from '../sources/read-sources'
import { SourceError, type Skipped } from '../sources/source-error'
import { assignIds } from './assign-ids'
import { dedupePhotos, type DedupeResult } from './dedupe-photos'
import { deriveFields } from './derive-fields'
import { measureDerivations, type DerivationErrors } from './measure-derivations'
import type { PhotoRecord } from './photo-record'
import { ROVER_SLUGS } from '../../src/catalog/rovers'
import { fitClock, leaveOneSolOut, type ClockLabel } from './clock-fit'
import { parseMarsTimeMs } from './date-taken-mars'
import { parseImageId } from './parse-image-id'
import { StatedValueCheck, TIME_TOLERANCE_MS } from './stated-values'
import { collectYoung, releaseMemory } from '../encode/release-memory'
import { BUILT_IN_CALIBRATION, calibrationFromTimetable, sclkToUtcFor, type SclkCalibration, type SclkToUtc } from './sclk-to-utc'

export interface ReadChecks extends ManifestChecks {
  /** The image id's sol differs from the record's sol. */
  idSolMismatches: Array<{ nasa_id: string; sol: number; id_sol: number; source: string }>
  /** The mission sol at the SCLK-derived UTC time differs from the record's sol. */
  clockSolMismatches: Array<{ nasa_id: string; sol: number; clock_sol: number }>
  /** A feed imageid that differs from the id derived from its URL. */
  imageIdVsUrl: Array<{ imageid: string; from_url: string; source: string }>
  /** Each derivation measured against the records that state the value (docs/derived-fields.md). */
  derivationErrors: DerivationErrors
}

export interface ReadResult extends Omit<SourceFiles, 'drafts' | 'imageIdVsUrl'> {
  records: PhotoRecord[]
  /** Records folded into another record of the same nasa_id (other product versions, overlaps). */
  merged: DedupeResult['merged']
  /** How many records each field was derived for. */
  derived: Record<string, number>
  checks: ReadChecks
}

/** The sources and normalize stages together, as the builder runs them (for tools and tests that want the records). */
export async function readSources(paths?: string[], opts: ReadOptions = {}): Promise<ReadResult> {
  return normalizeSources(readSourceFiles(paths, opts), opts)
}

/**
 * The normalize stage of the build: derives what each draft's record encodes (docs/derived-fields.md)
 * with the per-rover clocks of the timetables read, measures those derivations against the records
 * that state the value, drops records without an earth_date, folds records of one NASA image id
 * into one PhotoRecord, rejects two images claiming one v1 id, assigns ids to records without one,
 * and cross-checks the result against the v1 manifests. Bad records throw a SourceError, or with
 * `skipBad` are listed in `skipped`.
 */
/**
 * Records between young collections in the per-record steps: each record leaves short-lived
 * objects (parsed ids, labels, derived parts) that a young collection frees for little, where the
 * engine's own schedule lets them pile up over the records in memory (release-memory.ts).
 */
const YOUNG_EVERY = 20_000

export function normalizeSources(read: SourceFiles, opts: Pick<ReadOptions, 'skipBad'> & { clockLabels?: ClockLabels } = {}): ReadResult {
  const skipBad = opts.skipBad ?? false
  const { drafts, imageIdVsUrl, ...tables } = read
  const { sources, skipped, timetables, manifests } = tables
  const fitted = fitClocks(drafts.map((d) => d.draft.record), timetables, opts.clockLabels)
  const clocks = fitted.clocks
  const derived: Record<string, number> = {}
  const idSolMismatches: ReadChecks['idSolMismatches'] = []
  const clockSolMismatches: ReadChecks['clockSolMismatches'] = []
  const utcFromClock = new Set<PhotoRecord>()
  const kept: typeof drafts = []
  // The validation of stated values against the record's own clock, sol and mission calendar
  // (stated-values.ts) runs first: a contradicted value is neither served nor measured against.
  const stated = new StatedValueCheck(clocks, manifests)
  const corrected = new Set<PhotoRecord>()
  let n = 0
  for (const entry of drafts) {
    if (++n % YOUNG_EVERY === 0) collectYoung()
    const fields = stated.correct(entry.draft.record)
    if (fields.length === 0) continue
    corrected.add(entry.draft.record)
    const src = sources[entry.sourceIndex]!
    const counts = (src.contradicted ??= {})
    for (const f of fields) counts[f] = (counts[f] ?? 0) + 1
  }
  const derivationErrors = measureDerivations(drafts.map((d) => d.draft.record).filter((r) => !corrected.has(r)), clocks, fitted.lmst)
  // Each whole-catalogue step leaves per-record garbage (lists, labels, derived parts): collected
  // between steps, or by the engine's schedule it stacks up to GBs at a million records.
  const garbage = drafts.length * 512
  releaseMemory(garbage)
  for (const [rover, e] of Object.entries(fitted.validation) as Array<[RoverSlug, (typeof fitted.validation)[RoverSlug]]>) {
    const table = (derivationErrors[rover] ??= {})
    table.utc_from_sclk_loso = e!.utc
    if (e!.lmst) table.lmst_from_sclk_loso = e!.lmst
  }
  for (const entry of drafts) {
    if (++n % YOUNG_EVERY === 0) collectYoung()
    const rec = entry.draft.record
    const d = deriveFields(rec, clocks[rec.rover], fitted.lmst[rec.rover])
    if (rec.earth_date === '' && rec.date_taken_utc === undefined) {
      // No capture time to date it (a URL without a clock count): NASA's v1 date of its sol.
      const nasa = stated.manifestDate(rec.rover, rec.sol)
      if (nasa !== undefined) {
        rec.earth_date = nasa
        d.filled.push('earth_date')
      }
    }
    if (rec.earth_date === '') {
      const err = new SourceError(rec.source, rec.nasa_id, 'no earth_date, no capture time to derive it from, and no v1 manifest dating its sol')
      if (!skipBad) throw err
      skipped.push({ file: err.file, record: err.record, reason: err.reason })
      sources[entry.sourceIndex]!.skipped++
      continue
    }
    kept.push(entry)
    if (d.filled.includes('date_taken_utc')) utcFromClock.add(rec)
    for (const f of d.filled) derived[f] = (derived[f] ?? 0) + 1
    if (d.idSolMismatch !== undefined) idSolMismatches.push({ nasa_id: rec.nasa_id, sol: rec.sol, id_sol: d.idSolMismatch, source: rec.source })
    if (d.clockSolMismatch !== undefined) clockSolMismatches.push({ nasa_id: rec.nasa_id, sol: rec.sol, clock_sol: d.clockSolMismatch })
  }

  releaseMemory(garbage)
  const sourceOf = new Map<PhotoRecord, number>(kept.map(({ draft, sourceIndex }) => [draft.record, sourceIndex]))
  const { photos, merged } = dedupePhotos(kept.map((d) => d.draft))
  releaseMemory(garbage)
  const records = rejectDuplicateIds(photos, skipBad, skipped, sources, sourceOf)
  assignIds(records)
  for (const r of records) sources[sourceOf.get(r)!]!.photos++

  return {
    ...tables,
    records,
    waypoints: dedupeWaypoints(read.waypoints),
    merged,
    derived,
    checks: {
      ...crossCheckManifests(records, manifests, utcFromClock),
      idSolMismatches,
      clockSolMismatches,
      imageIdVsUrl,
      derivationErrors,
    },
  }
}

/** Per-rover SCLK → UTC: the built-in calibrations plus the MER timetables read. */
function buildCalibrations(timetables: readonly MerTimetableRow[]): SclkCalibration {
  const cal: SclkCalibration = { ...BUILT_IN_CALIBRATION }
  for (const rover of ['spirit', 'opportunity'] as const) {
    const rows = timetables.filter((r) => r.rover === rover)
    if (rows.length > 0) cal[rover] = calibrationFromTimetable(rows)
  }
  return cal
}

interface FittedClocks {
  clocks: Record<RoverSlug, SclkToUtc>
  lmst: Partial<Record<RoverSlug, (sclk: number, sol: number) => number>>
  validation: Partial<Record<RoverSlug, NonNullable<ReturnType<typeof leaveOneSolOut>>>>
}

/** Clock labels per rover given by the caller instead of read from the records (an update's merge: index-builder/merge/). */
export type ClockLabels = Partial<Record<RoverSlug, readonly ClockLabel[]>>

/**
 * A record's clock label (clock-fit.ts): a record stating its capture time whose image id holds
 * a clock count, and whose time agrees with the rover's `base` clock within the stated-value
 * tolerance (a contradicted time is no label); undefined for any other record.
 */
export function clockLabelOf(r: PhotoRecord, base: SclkToUtc): ClockLabel | undefined {
  if (r.date_taken_utc === undefined) return undefined
  const sclk = parseImageId(r.rover, r.nasa_id).sclk
  const t = sclk === undefined ? undefined : base(sclk)
  if (t === undefined || Math.abs(t - r.date_taken_utc) > TIME_TOLERANCE_MS) return undefined
  const lmst = r.date_taken_mars !== undefined ? parseMarsTimeMs(r.date_taken_mars) : undefined
  return { sol: r.sol, sclk: sclk!, utcMs: r.date_taken_utc, ...(lmst !== undefined ? { lmstMs: lmst } : {}) }
}

/** The uncalibrated clock of each rover the labels are taken on (the timetables read calibrate the MER rovers). */
export function baseClocks(timetables: readonly MerTimetableRow[]): Record<RoverSlug, SclkToUtc> {
  const cal = buildCalibrations(timetables)
  return Object.fromEntries(ROVER_SLUGS.map((rover) => [rover, sclkToUtcFor(cal[rover])])) as Record<RoverSlug, SclkToUtc>
}

/** The clocks fitted on every label read (clockLabelOf), or on the labels given for a rover. */
function fitClocks(records: readonly PhotoRecord[], timetables: readonly MerTimetableRow[], given: ClockLabels = {}): FittedClocks {
  const cal = buildCalibrations(timetables)
  const out: FittedClocks = { clocks: {} as Record<RoverSlug, SclkToUtc>, lmst: {}, validation: {} }
  for (const rover of ROVER_SLUGS) {
    const base = sclkToUtcFor(cal[rover])
    let labels: readonly ClockLabel[] | ClockLabel[] | undefined = given[rover]
    if (!labels) {
      const own: ClockLabel[] = []
      let n = 0
      for (const r of records) {
        if (r.rover !== rover) continue
        if (++n % YOUNG_EVERY === 0) collectYoung()
        const l = clockLabelOf(r, base)
        if (l) own.push(l)
      }
      labels = own
    }
    // Three labelled sols at least: fewer are no drift curve, and leaving one out validates nothing.
    const fit = new Set(labels.map((l) => l.sol)).size >= 3 ? fitClock(rover, labels, cal[rover]) : undefined
    out.clocks[rover] = fit?.toUtc ?? base
    if (fit) {
      out.lmst[rover] = fit.lmstCorrectionMs
      // Validation is the build summary's, not the index's: a merge of given labels skips its refits.
      const v = given[rover] ? undefined : leaveOneSolOut(rover, labels, cal[rover])
      if (v) out.validation[rover] = v
    }
  }
  return out
}

/** Two different images claiming one v1 id: the second is a bad record. */
function rejectDuplicateIds(photos: PhotoRecord[], skipBad: boolean, skipped: Skipped[], sources: ManifestSource[], sourceOf: Map<PhotoRecord, number>): PhotoRecord[] {
  const byId = new Map<number, PhotoRecord>()
  const out: PhotoRecord[] = []
  for (const p of photos) {
    if (p.id !== undefined) {
      const other = byId.get(p.id)
      if (other) {
        const err = new SourceError(p.source, `id ${p.id}`, `id ${p.id} is also the id of ${other.nasa_id} (${other.source}), a different image (${p.nasa_id})`)
        if (!skipBad) throw err
        skipped.push({ file: err.file, record: err.record, reason: err.reason })
        sources[sourceOf.get(p)!]!.skipped++
        continue
      }
      byId.set(p.id, p)
    }
    out.push(p)
  }
  return out
}

/** One waypoint per (rover, site, drive, sol, format): the daily M20 snapshots repeat positions. */
function dedupeWaypoints(ws: readonly Waypoint[]): Waypoint[] {
  const seen = new Set<string>()
  const out: Waypoint[] = []
  for (const w of ws) {
    const k = `${w.rover}|${w.site}|${w.drive}|${w.sol ?? ''}|${w.format}`
    if (seen.has(k)) continue
    seen.add(k)
    out.push(w)
  }
  return out
}

