import type { Manifest, ManifestSource, PhotoColumns, TextColumn } from '../src/store/schema'
import { runtimeSettings } from '../src/runtime-env'
import type { RoverSlug } from '../src/catalog/rovers'
import type { DerivationErrors } from './normalize/measure-derivations'
import type { TraverseBuild } from './derive/traverses'
import type { SunReport } from './sun/derive-sun'
import { printable } from './sources/input-limits'

/** What one build did, printed by formatSummary and returned by buildIndex. */
export interface BuildSummary {
  kind: Manifest['kind']
  version: string
  dir: string
  /** The same content was already published: only `current` moved. */
  reused: boolean
  /** Old versions deleted by this build. */
  removed: string[]
  rows: Manifest['rows']
  perRover: Record<RoverSlug, number>
  sources: ManifestSource[]
  skipped: Array<{ file: string; record: string; reason: string }>
  /** Photos having each field (derived or read). */
  coverage: Record<string, number>
  /** Records whose field was derived by the readers (real builds). */
  derived: Record<string, number>
  /** Each derivation measured against the records that state the value (real builds). */
  derivationErrors: DerivationErrors
  files: Manifest['files']
  seed?: number
  /** Milliseconds per stage. */
  timings: Record<string, number>
  /** Which location table each rover's traverse was built from (real builds). */
  traverses: TraverseBuild['report']
  sun?: SunReport
}

/** Photos having each field, counted over the columns (absent = sentinel, "" or NaN). */
export function photoCoverage(p: PhotoColumns): Record<string, number> {
  const n = p.length
  const nonEmpty = (c: TextColumn) => {
    let k = 0
    for (let i = 0; i < n; i++) if (c.offsets[i + 1]! > c.offsets[i]!) k++
    return k
  }
  const known = (a: ArrayLike<number>, absent: (v: number) => boolean) => {
    let k = 0
    for (let i = 0; i < n; i++) if (!absent(a[i]!)) k++
    return k
  }
  const dictKnown = (c: PhotoColumns['title']) => {
    const empty = c.dict.indexOf('')
    return empty < 0 ? n : known(c.codes, (v) => v === empty)
  }
  const nan = (v: number) => v !== v
  const neg = (v: number) => v < 0
  let siteDrive = 0
  for (let i = 0; i < n; i++) if (p.site[i]! >= 0 && p.drive[i]! >= 0) siteDrive++
  return {
    date_taken_utc: known(p.date_taken_utc, nan),
    date_taken_mars: nonEmpty(p.date_taken_mars),
    mars_time_ms: known(p.mars_time_ms, neg),
    sclk: known(p.sclk, nan),
    'site+drive': siteDrive,
    xyz: known(p.coord_x, nan),
    mast_azimuth: known(p.mast_azimuth, nan),
    mast_elevation: known(p.mast_elevation, nan),
    dimensions: known(p.width, neg),
    sample_type: dictKnown(p.sample_type),
    title: dictKnown(p.title),
    caption: dictKnown(p.caption),
    credit: dictKnown(p.credit),
    image_small: nonEmpty(p.image_small),
    image_medium: nonEmpty(p.image_medium),
    image_large: nonEmpty(p.image_large),
    image_full: nonEmpty(p.image_full),
    raw: nonEmpty(p.raw),
  }
}

const fmt = (n: number) => n.toLocaleString('en-US')
const pct = (k: number, n: number) => (n === 0 ? '-' : `${((100 * k) / n).toFixed(1)}%`)

/** The one-screen summary printed at the end of a build. */
export function formatSummary(s: BuildSummary, ms: number): string {
  const lines: string[] = []
  const n = s.rows.photos
  const mib = Object.values(s.files).reduce((a, f) => a + f.bytes, 0) / 2 ** 20
  lines.push(`index ${s.version} (${s.kind}${s.seed !== undefined ? `, seed ${s.seed}` : ''})${s.reused ? ' — same content as before, current re-pointed' : ''}`)
  lines.push(`  at ${s.dir}  (${mib.toFixed(1)} MiB)`)
  lines.push(`rows     photos ${fmt(n)}   locations ${fmt(s.rows.locations)}   panoramas ${fmt(s.rows.panoramas)}`)
  lines.push(`rovers   ${Object.entries(s.perRover).map(([r, k]) => `${r} ${fmt(k)}`).join('   ')}`)
  if (s.sun) {
    const e = s.sun.errors
    const d = s.sun.derived
    lines.push(`sun        stated ${fmt(s.sun.stated)}, derived ${fmt(d.waypoint)} at a waypoint, ${fmt(d.traverse)} on the sol's traverse, ${fmt(d.landing)} at the landing site, unknown ${fmt(s.sun.unknown)}`)
    if (e.elevation.n > 0) lines.push(`measured   sun derived vs stated, p95 |err|: elevation ${e.elevation.p95.toFixed(3)}° (n ${fmt(e.elevation.n)}), azimuth ${e.azimuth.p95.toFixed(3)}° (sun above 5°, n ${fmt(e.azimuth.n)}), solar longitude ${e.solar_longitude.p95.toFixed(4)}° (n ${fmt(e.solar_longitude.n)})`)
  }
  if (s.traverses?.length) lines.push(`traverse ${s.traverses.map((t) => `${t.rover} ${fmt(t.points)} points (${t.format})`).join('   ')}`)
  const fields = Object.entries(s.coverage)
  lines.push('coverage')
  for (let i = 0; i < fields.length; i += 4) {
    lines.push('  ' + fields.slice(i, i + 4).map(([f, k]) => `${f} ${pct(k, n)}`.padEnd(24)).join('').trimEnd())
  }
  const derived = Object.entries(s.derived)
  if (derived.length > 0) lines.push(`derived  ${derived.map(([f, k]) => `${f} ${fmt(k)}`).join(', ')}`)
  for (const [rover, methods] of Object.entries(s.derivationErrors ?? {})) {
    const parts = Object.entries(methods!).map(([m, e]) => ('agree' in e ? `${m} ${fmt(e.agree)}/${fmt(e.n)} agree` : `${m} n=${fmt(e.n)} median |err| ${e.median_abs}s p95 ${e.p95_abs}s max ${e.max_abs}s`))
    lines.push(`measured ${rover}: ${parts.join('; ')}`)
  }
  const prefix = commonFolder(s.sources.map((x) => x.path))
  lines.push(`sources  ${s.sources.length} files${prefix ? ` under ${prefix}` : ''}`)
  const names = s.sources.map((x) => x.path.slice(prefix.length))
  const width = Math.min(60, Math.max(...names.map((x) => x.length), 10))
  for (const [i, src] of s.sources.entries()) {
    const name = names[i]!
    const path = name.length > width ? '…' + name.slice(-(width - 1)) : name
    lines.push(`  ${path.padEnd(width)} ${src.format.padEnd(18)} records ${fmt(src.records).padStart(7)}  photos ${fmt(src.photos).padStart(7)}${src.skipped ? `  skipped ${fmt(src.skipped)}` : ''}`)
    if (src.contradicted) lines.push(`  ${''.padEnd(width)} stated values contradicting their record, served as derived: ${Object.entries(src.contradicted).map(([f, k]) => `${f} ${fmt(k!)}`).join(', ')}`)
  }
  if (s.skipped.length > 0) {
    lines.push(`skipped  ${fmt(s.skipped.length)} bad records (--skip-bad)`)
    for (const k of s.skipped.slice(0, 5)) lines.push(printable(`  ${k.file}: record ${k.record}: ${k.reason}`))
    if (s.skipped.length > 5) lines.push(`  … and ${fmt(s.skipped.length - 5)} more`)
  }
  if (s.removed.length > 0) lines.push(`pruned   ${s.removed.join(', ')}`)
  // The allocator settings the build ran with (src/runtime-env.ts): they move its CPU time and peak RSS.
  const settings = Object.entries(runtimeSettings())
  if (settings.length > 0) lines.push(`runtime  ${settings.map(([k, v]) => `${k}=${v}`).join(' ')}`)
  lines.push(`timings  ${Object.entries(s.timings).map(([k, v]) => `${k} ${(v / 1000).toFixed(2)}s`).join('  ')}  total ${(ms / 1000).toFixed(2)}s`)
  return lines.join('\n')
}

/** The longest folder prefix (ending in '/') shared by all paths. */
function commonFolder(paths: string[]): string {
  if (paths.length < 2) return ''
  let p = paths[0]!
  for (const q of paths) {
    let j = 0
    while (j < p.length && j < q.length && p[j] === q[j]) j++
    p = p.slice(0, j)
  }
  return p.slice(0, p.lastIndexOf('/') + 1)
}
