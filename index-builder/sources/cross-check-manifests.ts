import type { RoverSlug } from '../../src/catalog/rovers'
import type { PhotoRecord } from '../normalize/photo-record'
import { utcDate } from '../normalize/utc-time'
import type { RoverManifest } from './v1-manifest'

/**
 * Cross-checks of the photos against the v1 manifests (SOURCES.md §6: "cross-check sol → earth_date"):
 * each photo's earth_date against the manifest's for its (rover, sol), and the UTC date of a
 * SCLK-derived capture time against the same (docs/derived-fields.md, "Earth dates").
 */
export interface ManifestChecks {
  earthDateVsManifest: {
    compared: number
    agree: number
    disagreements: Array<{ rover: RoverSlug; sol: number; earth_date: string; manifest_earth_date: string; photos: number }>
    /** Photos of a rover with a manifest whose sol the manifest does not list. */
    solNotInManifest: number
  }
  /** UTC date of a date_taken_utc derived from SCLK vs the manifest's earth_date for the sol (days: count). */
  capturedDateVsManifest: { compared: number; agree: number; dayDifferences: Record<string, number> }
}

export function crossCheckManifests(
  records: readonly PhotoRecord[],
  manifests: readonly RoverManifest[],
  utcFromClock: ReadonlySet<PhotoRecord>,
): ManifestChecks {
  const bySol = new Map<string, string>()
  for (const m of manifests) for (const s of m.sols) bySol.set(`${m.rover}/${s.sol}`, s.earth_date)
  const withManifest = new Set(manifests.map((m) => m.rover))
  const earth = { compared: 0, agree: 0, disagreements: [] as ManifestChecks["earthDateVsManifest"]['disagreements'], solNotInManifest: 0 }
  const captured = { compared: 0, agree: 0, dayDifferences: {} as Record<string, number> }
  const bad = new Map<string, ManifestChecks["earthDateVsManifest"]['disagreements'][number]>()
  for (const r of records) {
    if (!withManifest.has(r.rover)) continue
    const m = bySol.get(`${r.rover}/${r.sol}`)
    if (m === undefined) {
      earth.solNotInManifest++
      continue
    }
    earth.compared++
    if (r.earth_date === m) earth.agree++
    else {
      const k = `${r.rover}/${r.sol}/${r.earth_date}`
      const d = bad.get(k)
      if (d) d.photos++
      else bad.set(k, { rover: r.rover, sol: r.sol, earth_date: r.earth_date, manifest_earth_date: m, photos: 1 })
    }
    if (r.date_taken_utc !== undefined && utcFromClock.has(r)) {
      const got = utcDate(r.date_taken_utc)
      captured.compared++
      const days = Math.round((Date.parse(got) - Date.parse(m)) / 86400000)
      if (days === 0) captured.agree++
      captured.dayDifferences[String(days)] = (captured.dayDifferences[String(days)] ?? 0) + 1
    }
  }
  earth.disagreements = [...bad.values()]
  return { earthDateVsManifest: earth, capturedDateVsManifest: captured }
}

