/**
 * bun index-builder/fetch/mirror-estimate.ts [--rate R] [--curiosity-sol N] [--perseverance-sol N]
 *
 * How long `npm run fetch -- --all` takes and how much disk its pages need, from what we hold of
 * NASA's own figures (docs/mirror.md states the assumptions):
 * - Curiosity: the v1 manifest's per-sol `total_photos` (../shared/data, SOURCES.md §2.1), one
 *   request per 200 items a sol and one for a sol without any; sols past the manifest's last at
 *   the manifest's mean per sol;
 * - Perseverance: the recorded feed pages (SOURCES.md §2.12) for bytes per record and the share of
 *   thumbnails beside full images; the published ~452,000 full images by sol 1,700 (§5) for the
 *   per-sol mean; 100 records a page.
 * Requests are the pages plus one latest-sol question a rover; time is requests ÷ rate.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { gunzipSync } from 'node:zlib'

const SHARED = join(import.meta.dir, '../../../shared/data')
const json = (path: string) => JSON.parse(gunzipSync(readFileSync(join(SHARED, path))).toString('utf8'))

export interface RoverEstimate {
  rover: string
  sols: number
  records: number
  requests: number
  bytes: number
}

export function estimateMirror(curiosityLatest: number, perseveranceLatest: number): { rovers: RoverEstimate[]; notes: Record<string, number> } {
  const manifest = json('raw/LakhvirMadhar__mars_rover_data_analysis/curiosity_manifest.json.gz').photo_manifest as { max_sol: number; total_photos: number; photos: Array<{ sol: number; total_photos: number }> }
  const perSol = new Map(manifest.photos.map((p) => [p.sol, p.total_photos]))
  const meanC = manifest.total_photos / (manifest.max_sol + 1)
  // A Curiosity item as §4.2 shows it, ~35 fields: a 200-item page is ~400 KB (validate-feed-page.ts).
  const curiosityItemBytes = 2000
  let cRecords = 0
  let cRequests = 1
  for (let sol = 0; sol <= curiosityLatest; sol++) {
    const n = sol <= manifest.max_sol ? (perSol.get(sol) ?? 0) : meanC
    cRecords += n
    cRequests += Math.max(1, Math.ceil(n / 200))
  }

  const recorded = json('incoming/mchapman87501__mars_perseverance_images/rss_feed.json.gz') as Array<Record<string, unknown>>
  const recordBytes = recorded.reduce((n, r) => n + Buffer.byteLength(JSON.stringify(r)), 0) / recorded.length
  const full = recorded.filter((r) => r.sample_type === 'Full').length
  const perFull = recorded.length / full
  const meanP = (452_000 / 1700) * perFull
  const pRecords = meanP * (perseveranceLatest + 1)
  // Per sol: the mean's pages, plus on average half a page of rounding (a sol's last page is partly full).
  const pRequests = 1 + (perseveranceLatest + 1) * (meanP / 100 + 0.5)
  return {
    rovers: [
      { rover: 'curiosity', sols: curiosityLatest + 1, records: Math.round(cRecords), requests: Math.round(cRequests), bytes: Math.round(cRecords * curiosityItemBytes) },
      { rover: 'perseverance', sols: perseveranceLatest + 1, records: Math.round(pRecords), requests: Math.round(pRequests), bytes: Math.round(pRecords * recordBytes) },
    ],
    notes: { curiosityManifestSol: manifest.max_sol, curiosityManifestPhotos: manifest.total_photos, curiosityMeanPerSol: meanC, perseveranceRecordBytes: recordBytes, perseveranceRecordsPerFull: perFull, perseveranceMeanPerSol: meanP },
  }
}

if (import.meta.main) {
  const { values: v } = parseArgs({ options: { rate: { type: 'string' }, 'curiosity-sol': { type: 'string' }, 'perseverance-sol': { type: 'string' } } })
  const rate = Number(v.rate ?? 1)
  const est = estimateMirror(Number(v['curiosity-sol'] ?? 4750), Number(v['perseverance-sol'] ?? 2030))
  const n = (x: number) => Math.round(x).toLocaleString('en-US')
  const hours = (req: number) => (req / rate / 3600).toFixed(1)
  console.log('| rover | sols | records | requests | hours at ' + rate + '/s | pages on disk |\n|---|---:|---:|---:|---:|---:|')
  let req = 0
  let bytes = 0
  for (const r of est.rovers) {
    console.log(`| ${r.rover} | ${n(r.sols)} | ${n(r.records)} | ${n(r.requests)} | ${hours(r.requests)} | ${(r.bytes / 1e9).toFixed(2)} GB |`)
    req += r.requests
    bytes += r.bytes
  }
  console.log(`| both | | ${n(est.rovers[0]!.records + est.rovers[1]!.records)} | ${n(req)} | ${hours(req)} | ${(bytes / 1e9).toFixed(2)} GB |`)
  console.log(JSON.stringify(est.notes))
}
