import type { ManifestSource } from '../../src/store/schema'
import { DEFAULT_INCOMING_DIR, DEFAULT_RAW_DIR, DEFAULT_SOURCE_DIRS, displayPath, listFiles, REPO_ROOT } from './list-files'
import { readCameraUrlLists } from './camera-url-lists'
import { detectFormat } from './detect-format'
import { readMerRmcTable, readMerTraverseTable } from './mer-location-table'
import { readMerTimetable, type MerTimetableRow } from './mer-timetable'
import { readMmgisTraverse, readMmgisWaypoints } from './mmgis-layer'
import { readM2020RawImages } from './m2020-raw-images'
import { readMslRawImageItems } from './msl-raw-image-items'
import { readMruRecord } from './mru-record'
import { openFile } from './open-file'
import type { RawStash } from '../encode/raw-file'
import type { PhotoDraft } from './photo-draft'
import { SharedStrings } from './shared-strings'
import { RecordError, SourceError, type ReadContext, type Skipped } from './source-error'
import { validateRecord } from '../normalize/validate-record'
import { curiosityVoDrafts, readPds3Label, readUrlIndex, type LabelFacts } from './pds3/curiosity-vo'
import { readMerEdrIndex } from './pds3/mer-edr-index'
import { readV1Csv } from './v1-csv'
import { readV1Manifest, type RoverManifest } from './v1-manifest'
import { readV1Photos } from './v1-photos'
import type { TraverseSummary, Waypoint } from './waypoint'

export type { MerTimetableRow, RoverManifest, Skipped, TraverseSummary, Waypoint }
export { DEFAULT_INCOMING_DIR, DEFAULT_RAW_DIR, DEFAULT_SOURCE_DIRS, REPO_ROOT, SourceError }

export interface ReadOptions {
  skipBad?: boolean
  /**
   * Put each record's raw JSON in this stash as its file is read, the record keeping only where
   * it is (`raw_at`, `raw_bytes`), instead of holding the text from the read to the photo table
   * (~2 KB of a feed record's ~2.5 KB in memory).
   */
  rawStash?: RawStash
  onProgress?: (done: number, total: number, label: string) => void
  /** Share the records' repeated texts (shared-strings.ts; default true). False reads each record's own copies: the same records, for comparing. */
  shareStrings?: boolean
}

/** What the source files hold, as read: photo drafts (not yet normalised) and the tables beside them. */
export interface SourceFiles {
  drafts: Array<{ draft: PhotoDraft; sourceIndex: number }>
  sources: ManifestSource[]
  skipped: Skipped[]
  waypoints: Waypoint[]
  traverses: TraverseSummary[]
  timetables: MerTimetableRow[]
  manifests: RoverManifest[]
  /** Photos dropped because their instrument maps to no catalogue camera. */
  unmapped: Array<{ rover: string; instrument: string; photos: number }>
  /** A feed imageid that differs from the id derived from its URL. */
  imageIdVsUrl: Array<{ imageid: string; from_url: string; source: string }>
  /** Files under the given folders that were not read (not a data file by name). */
  ignored: string[]
}

/**
 * The sources stage of the build: reads every source under exactly the given files or folders
 * (default: the real data folders `<repo>/../shared/data/raw` and `…/incoming`,
 * DEFAULT_SOURCE_DIRS), detects each file's format by content and returns the photo drafts of
 * its reader with the location tables, MER timetables and v1 manifests. Normalising the drafts
 * into PhotoRecords is the next stage (normalize/normalize-sources.ts).
 *
 * Bad input throws a SourceError naming the file and record; with `skipBad` the bad record (or file)
 * is left out and listed in `skipped` instead.
 */
export function readSourceFiles(paths?: string[], opts: ReadOptions = {}): SourceFiles {
  const skipBad = opts.skipBad ?? false
  const files = listFiles(paths && paths.length > 0 ? paths : DEFAULT_SOURCE_DIRS)
  const skipped: Skipped[] = []
  // Links that leave the roots, dangle or loop are never read; they are reported, not fatal.
  for (const r of files.refused) skipped.push({ file: r.path, record: 'file', reason: r.reason })
  const unmapped = new Map<string, number>()
  const sources: ManifestSource[] = []
  const drafts: Array<{ draft: PhotoDraft; sourceIndex: number }> = []
  const waypoints: Waypoint[] = []
  const traverses: TraverseSummary[] = []
  const timetables: MerTimetableRow[] = []
  const manifests: RoverManifest[] = []
  const imageIdVsUrl: SourceFiles['imageIdVsUrl'] = []
  // The records' repeated texts, one copy each for the whole read (shared-strings.ts).
  const strings = opts.shareStrings === false ? undefined : new SharedStrings()

  files.data.forEach((abs, i) => {
    const display = displayPath(abs)
    const skippedBefore = skipped.length
    const source: ManifestSource = { path: display, format: 'unknown', records: 0, photos: 0, skipped: 0 }
    const sourceIndex = sources.length
    try {
      // Read the whole file before keeping anything, so a bad file contributes nothing.
      const fileUnmapped = new Map<string, number>()
      const got = readFileSafely(abs, display, { skipBad, skipped, unmapped: fileUnmapped }, imageIdVsUrl, opts.rawStash, strings)
      for (const [k, n] of fileUnmapped) unmapped.set(k, (unmapped.get(k) ?? 0) + n)
      source.format = got.format
      source.records = got.records
      for (const draft of got.drafts) drafts.push({ draft, sourceIndex })
      // Loops, not push(...spread): a file may hold millions of rows (spread arguments overflow the stack).
      append(waypoints, got.waypoints)
      append(traverses, got.traverses)
      append(timetables, got.timetables)
      append(manifests, got.manifests)
    } catch (e) {
      if (!(e instanceof SourceError) || !skipBad) throw e
      skipped.splice(skippedBefore)
      skipped.push({ file: e.file, record: e.record, reason: e.reason })
    }
    source.skipped = skipped.length - skippedBefore
    sources.push(source)
    opts.onProgress?.(i + 1, files.data.length, display)
  })

  return {
    drafts,
    sources,
    skipped,
    waypoints,
    traverses,
    timetables,
    manifests,
    unmapped: [...unmapped].map(([k, photos]) => {
      const [rover, instrument] = k.split('/') as [string, string]
      return { rover, instrument, photos }
    }),
    imageIdVsUrl,
    ignored: files.ignored.map(displayPath),
  }
}

interface FileResult {
  format: string
  records: number
  drafts: PhotoDraft[]
  waypoints: Waypoint[]
  traverses: TraverseSummary[]
  timetables: MerTimetableRow[]
  manifests: RoverManifest[]
}

/** One file (or every member of one archive) through format detection and its reader. */
function readOneFile(
  abs: string,
  display: string,
  shared: Pick<ReadContext, 'skipBad' | 'skipped' | 'unmapped'>,
  imageIdVsUrl: SourceFiles['imageIdVsUrl'],
  rawStash: RawStash | undefined,
  strings: SharedStrings | undefined,
): FileResult {
  const out: FileResult = { format: '', records: 0, drafts: [], waypoints: [], traverses: [], timetables: [], manifests: [] }
  const formats = new Set<string>()
  const labels = new Map<string, LabelFacts>()
  const urls: Array<{ url: string; ctx: ReadContext; line: number }> = []
  const entries = openFile(abs, display)
  for (const entry of entries) {
    const file = entry.member ? `${display}:${entry.member}` : display
    const ctx: ReadContext = { file, ...shared }
    const idMismatch = (imageid: string, fromUrl: string) => imageIdVsUrl.push({ imageid, from_url: fromUrl, source: file })
    const d = detectFormat(file, entry.text)
    if (d.format === 'unknown') throw new SourceError(file, 'file', `unknown format: ${d.why}`)
    formats.add(d.format)
    let r: { records: number; drafts?: PhotoDraft[]; waypoints?: Waypoint[] }
    switch (d.format) {
      case 'pds3-label': {
        for (const facts of eachRecordOf(ctx, 'label', () => readPds3Label(d.text))) {
          const other = labels.get(facts.nasa_id)
          if (other) throw new SourceError(file, 'file', `a second label for ${facts.nasa_id} (first in ${other.where})`)
          labels.set(facts.nasa_id, { ...facts, where: file })
        }
        r = { records: 1 }
        break
      }
      case 'pds3-index-table': {
        // The table is a file beside the label, found by name: a label inside an archive has none.
        if (entry.member) throw new SourceError(file, 'file', 'a PDS3 index label inside an archive: give the folder holding the label and its table')
        r = readMerEdrIndex(abs, d.text, ctx)
        break
      }
      case 'url-index': {
        const list = readUrlIndex(d.text)
        list.forEach((url, i) => urls.push({ url, ctx, line: i + 1 }))
        r = { records: list.length }
        break
      }
      case 'v1-json':
      case 'v1-pics': r = readV1Photos(d.doc, ctx); break
      case 'camera-url-lists': r = readCameraUrlLists(d.doc, ctx); break
      case 'v1-csv': r = readV1Csv(d.table, ctx); break
      case 'mru-record': r = readMruRecord(d.doc, ctx, idMismatch); break
      case 'm2020-raw-images': r = readM2020RawImages(d.doc, ctx, idMismatch); break
      case 'msl-raw-image-items': r = readMslRawImageItems(d.doc, ctx, idMismatch); break
      case 'manifest': {
        const m = readV1Manifest(d.doc, ctx)
        out.manifests.push(m.manifest)
        r = m
        break
      }
      case 'waypoints': r = readMmgisWaypoints(d.doc as Parameters<typeof readMmgisWaypoints>[0], ctx); break
      case 'traverse': {
        const t = readMmgisTraverse(d.doc as Parameters<typeof readMmgisTraverse>[0], ctx)
        out.traverses.push(t.traverse)
        r = t
        break
      }
      case 'mer-rmc-table': r = readMerRmcTable(d.table, ctx); break
      case 'mer-traverse-table': r = readMerTraverseTable(d.table, ctx); break
      case 'mer-timetable': {
        const t = readMerTimetable(d.table, ctx)
        append(out.timetables, t.rows)
        r = t
        break
      }
    }
    out.records += r.records
    if (r.drafts) append(out.drafts, r.drafts)
    if (r.waypoints) append(out.waypoints, r.waypoints)
  }
  if (labels.size > 0 || urls.length > 0) {
    const labelCtx = (where: string): ReadContext => ({ file: where, ...shared })
    append(out.drafts, curiosityVoDrafts(urls, labels, labelCtx))
  }
  out.drafts = validDrafts(out.drafts, shared)
  if (strings) for (const d of out.drafts) strings.shareRecord(d.record)
  if (rawStash) {
    for (const d of out.drafts) {
      const rec = d.record
      if (rec.raw === undefined) continue
      rec.raw_at = rawStash.put(rec.raw)
      rec.raw_bytes = rawStash.lastBytes
      rec.raw = undefined
    }
  }
  out.format = [...formats].join('+') || 'empty'
  return out
}

/** Drafts that pass the build-time gate (validate-record.ts); a bad one is a record error of its file. */
function validDrafts(drafts: PhotoDraft[], shared: Pick<ReadContext, 'skipBad' | 'skipped'>): PhotoDraft[] {
  const out: PhotoDraft[] = []
  for (const d of drafts) {
    try {
      validateRecord(d.record)
      out.push(d)
    } catch (e) {
      if (!(e instanceof RecordError)) throw e
      const err = new SourceError(d.record.source, d.record.id !== undefined ? `id ${d.record.id}` : JSON.stringify(d.record.nasa_id.slice(0, 100)), e.reason)
      if (!shared.skipBad) throw err
      shared.skipped.push({ file: err.file, record: err.record, reason: err.reason })
    }
  }
  return out
}

/** One record-level read; a RecordError becomes a skipped record (skipBad) or a SourceError. */
function eachRecordOf<T>(ctx: ReadContext, label: string, fn: () => T): T[] {
  try {
    return [fn()]
  } catch (e) {
    if (!(e instanceof RecordError)) throw e
    const err = new SourceError(ctx.file, label, e.reason)
    if (!ctx.skipBad) throw err
    ctx.skipped.push({ file: err.file, record: err.record, reason: err.reason })
    return []
  }
}

/**
 * readOneFile, with every failure a SourceError naming the file: a reader's TypeError on a null
 * where an object belongs, a RangeError from a structure too deep, a failed system call.
 */
function readFileSafely(...args: Parameters<typeof readOneFile>): FileResult {
  try {
    return readOneFile(...args)
  } catch (e) {
    if (e instanceof SourceError) throw e
    const why = e instanceof RangeError ? 'too large or too deeply nested to read' : `unreadable (${e instanceof Error ? `${e.name}: ${e.message}` : String(e)})`
    throw new SourceError(args[1], 'file', why.slice(0, 300))
  }
}

function append<T>(into: T[], from: readonly T[]): void {
  for (let i = 0; i < from.length; i++) into.push(from[i]!)
}




