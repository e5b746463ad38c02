import { INT_ABSENT, type PanoramaColumns, type PhotoColumns } from '../../src/store/schema'
import { circularCoverage, positionSpacing, uniquePositions } from './azimuth-coverage'
import { utf8Column } from '../encode/utf8-builder'

/**
 * Panorama detection, run once by the index builder (behaviour.md §15.2 with its thresholds;
 * decisions.md, Other endpoints, Panoramas).
 *
 * 1. Candidates: photos with site, drive, mast azimuth, mast elevation and spacecraft clock.
 * 2. Group by (rover, sol, site, drive, camera); inside a group order by sclk, then elevation,
 *    then id (the Anchor's load order, made total).
 * 3. Walk a group: the first photo opens a sequence and sets its base elevation; the next photo
 *    joins while |elevation - base| <= 15° and 0 <= sclk - previous sclk <= 300 s (equal clocks,
 *    bracketed exposures, join); otherwise the sequence closes and the photo opens the next.
 * 4. A closed sequence is a panorama with >= 3 photos, azimuth coverage >= 30° and >= 3 unique
 *    whole-degree azimuths. Coverage is measured on the circle (azimuth-coverage.ts), so a pan
 *    across north counts its real width (the Anchor's max - min is a BUG there).
 * 5. Numbered per (rover, sol) from 1 in time order (first photo's sclk; ties by camera name,
 *    site, drive, first photo id): id `pano_{slug}_{sol}_{n}`. The Anchor numbers across rovers
 *    from 0, so its list ids did not resolve (behaviour.md §15.4, BUG).
 *
 * Thresholds are compared with a tolerance of 1e-4 (degrees, seconds): mast angles are stored as
 * float32 and clocks are decimal strings in the feeds, so 15.0 can arrive as 15.00000038 and a
 * 300-second gap as 300.0000001.
 *
 * Record fields follow §15.3 (see PanoramaColumns); floats are stored rounded to 3 decimals.
 * Output rows are ordered by rover code, sol, n.
 */
export const PANORAMA_RULES = {
  maxElevationDelta: 15,
  maxClockGapSeconds: 300,
  minPhotos: 3,
  minCoverageDegrees: 30,
  minUniquePositions: 3,
} as const

const EPS = 1e-4

export function derivePanoramas(photos: PhotoColumns): PanoramaColumns {
  const order = candidatesByRoverSol(photos)
  const { rover, sol, sclk, mast_elevation: el } = photos
  const out = new PanoramaBuilder(photos)
  const splitter = new GroupSplitter(photos)
  const byClock = (a: number, b: number) => sclk[a]! - sclk[b]! || el[a]! - el[b]! || photos.id[a]! - photos.id[b]!

  let b = 0
  while (b < order.length) {
    // one bucket = the candidates of one (rover, sol)
    const r = rover[order[b]!]!
    const s = sol[order[b]!]!
    let e = b + 1
    while (e < order.length && rover[order[e]!] === r && sol[order[e]!] === s) e++
    const found: Found[] = []
    if (e - b >= PANORAMA_RULES.minPhotos) {
      for (const group of splitter.split(order, b, e)) {
        if (group.length < PANORAMA_RULES.minPhotos) continue
        if (!isSorted(group, byClock)) group.sort(byClock)
        let start = 0
        for (let i = 1; i <= group.length; i++) {
          if (i < group.length) {
            const row = group[i]!
            const gap = sclk[row]! - sclk[group[i - 1]!]!
            if (Math.abs(el[row]! - el[group[start]!]!) <= PANORAMA_RULES.maxElevationDelta + EPS && gap >= 0 && gap <= PANORAMA_RULES.maxClockGapSeconds + EPS) continue
          }
          const f = out.evaluate(group, start, i)
          if (f) found.push(f)
          start = i
        }
      }
    }
    found.sort((x, y) => out.timeOrder(x.rows[x.start]!, y.rows[y.start]!))
    for (let k = 0; k < found.length; k++) out.add(found[k]!, k + 1)
    b = e
  }
  return out.columns()
}

function isSorted(rows: number[], cmp: (a: number, b: number) => number): boolean {
  for (let i = 1; i < rows.length; i++) if (cmp(rows[i - 1]!, rows[i]!) > 0) return false
  return true
}

/**
 * Rows that can belong to a panorama, ordered by (rover, sol) with a stable counting sort. The
 * photo rows are in default order (capture time descending), so they are collected backwards:
 * inside a (rover, sol) they then come mostly in clock order and the per-group sort is a check.
 */
function candidatesByRoverSol(photos: PhotoColumns): Int32Array {
  const { site, drive, mast_azimuth, mast_elevation, sclk, rover, sol } = photos
  const dict = photos.camera.dict
  const codes = photos.camera.codes
  const cand = new Int32Array(photos.length)
  let n = 0
  let maxSol = 0
  for (let row = photos.length - 1; row >= 0; row--) {
    if (site[row] === INT_ABSENT || drive[row] === INT_ABSENT) continue
    if (Number.isNaN(mast_azimuth[row]!) || Number.isNaN(mast_elevation[row]!) || Number.isNaN(sclk[row]!)) continue
    if (dict[codes[row]!] === '' || sol[row]! < 0) continue
    cand[n++] = row
    if (sol[row]! > maxSol) maxSol = sol[row]!
  }
  const span = maxSol + 1
  if (4 * span > 16_000_000) {
    const key = (row: number) => rover[row]! * span + sol[row]!
    return Int32Array.from(Array.from(cand.subarray(0, n)).sort((a, b) => key(a) - key(b)))
  }
  const counts = new Int32Array(4 * span + 1)
  for (let i = 0; i < n; i++) counts[rover[cand[i]!]! * span + sol[cand[i]!]! + 1]!++
  for (let k = 1; k < counts.length; k++) counts[k]! += counts[k - 1]!
  const sorted = new Int32Array(n)
  for (let i = 0; i < n; i++) {
    const row = cand[i]!
    sorted[counts[rover[row]! * span + sol[row]!]!++] = row
  }
  return sorted
}

/** Splits the candidates of one (rover, sol) by (site, drive, camera), keeping their order. */
class GroupSplitter {
  readonly #p: PhotoColumns
  constructor(photos: PhotoColumns) {
    this.#p = photos
  }

  split(order: Int32Array, b: number, e: number): number[][] {
    const { site, drive } = this.#p
    const cam = this.#p.camera.codes
    const groups: number[][] = []
    let last: number[] | undefined
    for (let i = b; i < e; i++) {
      const row = order[i]!
      let g = last
      if (!g || !same(g[0]!, row)) {
        g = groups.find((x) => same(x[0]!, row))
        if (!g) groups.push((g = []))
      }
      g.push(row)
      last = g
    }
    return groups
    function same(a: number, c: number): boolean {
      return site[a] === site[c] && drive[a] === drive[c] && cam[a] === cam[c]
    }
  }
}

/** A sequence that qualifies: rows[start..end) with its measures. */
interface Found {
  rows: number[]
  start: number
  end: number
  coverage: number
  unique: number
  spacing: number
}

/** Evaluates sequences and accumulates the PanoramaColumns of the ones that qualify. */
class PanoramaBuilder {
  readonly #p: PhotoColumns
  #scratch = new Float64Array(64)
  readonly #positions = new Float64Array(360)
  readonly #marks = new Uint8Array(360)

  readonly rover: number[] = []
  readonly sol: number[] = []
  readonly n: number[] = []
  readonly camera: string[] = []
  readonly site: number[] = []
  readonly drive: number[] = []
  readonly coord: number[][] = [[], [], []]
  readonly timeStart: string[] = []
  readonly timeEnd: string[] = []
  readonly total: number[] = []
  readonly coverage: number[] = []
  readonly avgElevation: number[] = []
  readonly unique: number[] = []
  readonly spacing: number[] = []
  readonly quality: number[] = []
  readonly ids: number[] = []
  readonly idOffsets: number[] = [0]

  constructor(photos: PhotoColumns) {
    this.#p = photos
  }

  /** §15.2 step 4 for rows[start..end): the sequence with its measures when it is a panorama. */
  evaluate(rows: number[], start: number, end: number): Found | undefined {
    const count = end - start
    if (count < PANORAMA_RULES.minPhotos) return undefined
    if (this.#scratch.length < count) this.#scratch = new Float64Array(count * 2)
    const az = this.#scratch
    for (let i = 0; i < count; i++) az[i] = this.#p.mast_azimuth[rows[start + i]!]!
    const unique = uniquePositions(az, count, this.#marks, this.#positions)
    if (unique < PANORAMA_RULES.minUniquePositions) return undefined
    const coverage = circularCoverage(az, count)
    if (coverage < PANORAMA_RULES.minCoverageDegrees - EPS) return undefined
    return { rows, start, end, coverage, unique, spacing: positionSpacing(this.#positions, unique) }
  }

  /** Time order of two sequences of one (rover, sol), by their first photos. */
  timeOrder(a: number, b: number): number {
    const p = this.#p
    const names = p.camera.dict
    const ca = names[p.camera.codes[a]!]!
    const cb = names[p.camera.codes[b]!]!
    return p.sclk[a]! - p.sclk[b]! || (ca < cb ? -1 : ca > cb ? 1 : 0) || p.site[a]! - p.site[b]! || p.drive[a]! - p.drive[b]! || p.id[a]! - p.id[b]!
  }

  add(f: Found, n: number): void {
    const p = this.#p
    const first = f.rows[f.start]!
    const last = f.rows[f.end - 1]!
    let elSum = 0
    for (let i = f.start; i < f.end; i++) {
      elSum += p.mast_elevation[f.rows[i]!]!
      this.ids.push(p.id[f.rows[i]!]!)
    }
    this.idOffsets.push(this.ids.length)
    const count = f.end - f.start
    this.rover.push(p.rover[first]!)
    this.sol.push(p.sol[first]!)
    this.n.push(n)
    this.camera.push(p.camera.dict[p.camera.codes[first]!]!)
    this.site.push(p.site[first]!)
    this.drive.push(p.drive[first]!)
    this.coord[0]!.push(p.coord_x[first]!)
    this.coord[1]!.push(p.coord_y[first]!)
    this.coord[2]!.push(p.coord_z[first]!)
    this.timeStart.push(marsTime(p.mars_time_ms[first]!))
    this.timeEnd.push(marsTime(p.mars_time_ms[last]!))
    this.total.push(count)
    this.coverage.push(round3(f.coverage))
    this.avgElevation.push(round3(elSum / count))
    this.unique.push(f.unique)
    this.spacing.push(round3(f.spacing))
    this.quality.push(qualityCode(f.coverage, f.unique))
  }

  columns(): PanoramaColumns {
    const cameraDict = [...new Set(this.camera)].sort()
    const cameraCode = new Map(cameraDict.map((c, i) => [c, i]))
    return {
      length: this.rover.length,
      rover: Uint8Array.from(this.rover),
      sol: Int32Array.from(this.sol),
      n: Int32Array.from(this.n),
      camera: { codes: Int16Array.from(this.camera, (c) => cameraCode.get(c)!), dict: cameraDict },
      site: Int32Array.from(this.site),
      drive: Int32Array.from(this.drive),
      coord_x: Float64Array.from(this.coord[0]!),
      coord_y: Float64Array.from(this.coord[1]!),
      coord_z: Float64Array.from(this.coord[2]!),
      mars_time_start: utf8Column(this.timeStart),
      mars_time_end: utf8Column(this.timeEnd),
      total_photos: Int32Array.from(this.total),
      coverage_degrees: Float64Array.from(this.coverage),
      avg_elevation: Float64Array.from(this.avgElevation),
      unique_positions: Int32Array.from(this.unique),
      avg_position_spacing: Float64Array.from(this.spacing),
      quality: { codes: Int8Array.from(this.quality), dict: [...QUALITY] },
      photo_ids_offsets: Int32Array.from(this.idOffsets),
      photo_ids_values: Int32Array.from(this.ids),
    }
  }
}

/** Quality labels (§15.3), in dictionary-code order. */
export const QUALITY = ['full', 'wide', 'half', 'partial'] as const

/** §15.3: full >= 300° and >= 10 positions; wide >= 200° and >= 7; half >= 120° and >= 5; else partial. */
export function qualityCode(coverage: number, positions: number): number {
  if (coverage >= 300 - EPS && positions >= 10) return 0
  if (coverage >= 200 - EPS && positions >= 7) return 1
  if (coverage >= 120 - EPS && positions >= 5) return 2
  return 3
}

/** `Mhh:mm:ss` from local time of day in ms (fraction dropped, §15.3); "" when unknown. */
export function marsTime(ms: number): string {
  if (!(ms >= 0)) return ''
  const s = Math.floor(ms / 1000)
  const two = (v: number) => (v < 10 ? '0' : '') + v
  return `M${two(Math.floor(s / 3600))}:${two(Math.floor(s / 60) % 60)}:${two(s % 60)}`
}

function round3(x: number): number {
  return Number.isNaN(x) ? NaN : Math.round(x * 1000) / 1000
}
