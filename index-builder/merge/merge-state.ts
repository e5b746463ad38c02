import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import type { RoverSlug } from '../../src/catalog/rovers'
import { baseClocks, clockLabelOf } from '../normalize/normalize-sources'
import { parseImageId } from '../normalize/parse-image-id'
import type { ClockLabel } from '../normalize/clock-fit'
import type { MerTimetableRow, RoverManifest, SourceFiles, Waypoint } from '../sources/read-sources'
import { displayPath, listFiles } from '../sources/list-files'
import { writeDurably } from '../encode/write-arrow-file'

/**
 * What an update's merge needs to know of the pages an index was built from, beyond the index's
 * own columns (merge-update.ts): written by every build from a page store into its version folder
 * as `merge-state.json`, after the content digest (like the ledger, it is not content: the same
 * pages give the same index whatever built it).
 *
 *   folders  each sol folder of the page store (`<rover>/sol-NNNNN`) with a digest of its pages'
 *            names, sizes and modification times: the fetcher swaps a sol folder whole when its
 *            pages differ, so the folders whose digest changed are the sols to read again;
 *   groups   per rover and sol of the records read (all sources): whether every record of it came
 *            from its own page-store folder (only such a sol can be read again on its own), the
 *            range of its records' clock counts, and its clock labels (normalize-sources.ts,
 *            clockLabelOf) — the clock fit is the one whole-catalogue step a new sol changes
 *            elsewhere, and its labels are what it is fitted on;
 *   tables   the v1 manifests, MER timetables and waypoints read (the merge reads no other source).
 */
export const MERGE_STATE_FILE = 'merge-state.json'

export interface SolGroup {
  /** Every record of this rover and sol was read from the page store's folder of this sol. */
  pure: boolean
  /** The smallest and largest clock count of its records (image id, else the record's own), absent when none has one. */
  lo?: number
  hi?: number
  /** Its clock labels flat: sclk, utcMs, lmstMs (null when unstated), … */
  labels: Array<number | null>
}

export interface MergeState {
  schema: 1
  builder: string
  /** The page store, and the other sources read with it, as the build's summary names them. */
  page_store: string
  roots: string[]
  /** The other sources' files (names, sizes, modification times) as one digest: a merge reads none of them again. */
  sources_digest: string
  /** Built with --skip-bad (records that cannot be read left out, not failing the build). */
  skip_bad: boolean
  folders: Record<string, string>
  groups: Record<string, SolGroup>
  manifests: RoverManifest[]
  timetables: MerTimetableRow[]
  waypoints: Waypoint[]
}

const SOL_DIR = /^sol-(\d{5})$/
const PAGE_FILE = /^page-\d{3}\.json$/

/** Each sol folder of the page store with the digest of its pages (names, sizes, modification times). */
export function pageFolders(feedDir: string): Record<string, string> {
  const out: Record<string, string> = {}
  if (!existsSync(feedDir)) return out
  for (const rover of readdirSync(feedDir).filter((n) => !n.startsWith('.')).sort()) {
    const roverDir = join(feedDir, rover)
    if (!statSync(roverDir).isDirectory()) continue
    for (const sol of readdirSync(roverDir).filter((n) => SOL_DIR.test(n)).sort()) {
      const hash = new Bun.CryptoHasher('sha256')
      for (const page of readdirSync(join(roverDir, sol)).filter((n) => PAGE_FILE.test(n)).sort()) {
        const st = statSync(join(roverDir, sol, page), { bigint: true })
        hash.update(`${page} ${st.size} ${st.mtimeNs}\n`)
      }
      out[`${rover}/${sol}`] = hash.digest('hex').slice(0, 32)
    }
  }
  return out
}

/** The data files under the given sources (as a build lists them) with their sizes and modification times, as one digest. */
export function sourcesDigest(roots: readonly string[]): string {
  const hash = new Bun.CryptoHasher('sha256')
  for (const path of listFiles(roots).data) {
    const st = statSync(path, { bigint: true })
    hash.update(`${path} ${st.size} ${st.mtimeNs}\n`)
  }
  return hash.digest('hex').slice(0, 32)
}

export const groupKey = (rover: string, sol: number) => `${rover}/${sol}`
export const folderOf = (rover: string, sol: number) => `${rover}/sol-${String(sol).padStart(5, '0')}`

/** The group (rover/sol) a page-store folder name holds, or undefined for a name that is not one. */
export function groupOfFolder(folder: string): string | undefined {
  const [rover, sol] = folder.split('/')
  const m = sol ? SOL_DIR.exec(sol) : null
  return rover && m ? groupKey(rover, Number(m[1])) : undefined
}

/**
 * The groups of the drafts read, before they are normalised (normalising corrects stated times,
 * and labels are taken on the records as read, as the clock fit takes them).
 */
export function solGroups(files: Pick<SourceFiles, 'drafts' | 'sources' | 'timetables'>, feedDir: string): Record<string, SolGroup> {
  const store = `${displayPath(feedDir)}/`
  const base = baseClocks(files.timetables)
  const groups: Record<string, SolGroup> = {}
  // A page's records are one after the other and share their file, rover and sol: the group and
  // whether the file is in the group's folder are found once per run of them, not per record.
  let lastSource = -1
  let lastRover = ''
  let lastSol = -1
  let g: SolGroup = { pure: true, labels: [] }
  for (const { draft, sourceIndex } of files.drafts) {
    const r = draft.record
    if (sourceIndex !== lastSource || r.rover !== lastRover || r.sol !== lastSol) {
      lastSource = sourceIndex
      lastRover = r.rover
      lastSol = r.sol
      g = groups[groupKey(r.rover, r.sol)] ??= { pure: true, labels: [] }
      if (!files.sources[sourceIndex]!.path.startsWith(`${store}${folderOf(r.rover, r.sol)}/`)) g.pure = false
    }
    const clock = parseImageId(r.rover, r.nasa_id).sclk ?? r.sclk
    if (clock !== undefined && Number.isFinite(clock)) {
      if (g.lo === undefined || clock < g.lo) g.lo = clock
      if (g.hi === undefined || clock > g.hi) g.hi = clock
    }
    const l = clockLabelOf(r, base[r.rover])
    if (l) g.labels.push(l.sclk, l.utcMs, l.lmstMs ?? null)
  }
  return groups
}

/** A group's labels as the clock fit takes them. */
export function labelsOf(sol: number, g: SolGroup): ClockLabel[] {
  const out: ClockLabel[] = []
  for (let i = 0; i < g.labels.length; i += 3) {
    const lmst = g.labels[i + 2]
    out.push({ sol, sclk: g.labels[i]!, utcMs: g.labels[i + 1]!, ...(lmst !== null && lmst !== undefined ? { lmstMs: lmst } : {}) })
  }
  return out
}

/** Every label of one rover over all its groups. */
export function roverLabels(groups: Record<string, SolGroup>, rover: RoverSlug): ClockLabel[] {
  const out: ClockLabel[] = []
  for (const [key, g] of Object.entries(groups)) {
    const [r, sol] = key.split('/')
    if (r !== rover) continue
    for (const l of labelsOf(Number(sol), g)) out.push(l)
  }
  return out
}

export function writeMergeState(dir: string, state: MergeState): void {
  writeDurably(join(dir, MERGE_STATE_FILE), new TextEncoder().encode(JSON.stringify(state)))
}

export function readMergeState(dir: string): MergeState | undefined {
  const path = join(dir, MERGE_STATE_FILE)
  if (!existsSync(path)) return undefined
  try {
    const s = JSON.parse(readFileSync(path, 'utf8')) as MergeState
    return s?.schema === 1 && s.groups && s.folders ? s : undefined
  } catch {
    return undefined
  }
}
