import { ROVERS } from '../src/catalog/rovers'
import { roverManifests } from '../src/query/stats/rover-manifest'
import { sampleNote } from '../src/query/stats/catalogue-share'
import type { Store } from '../src/store/store'

/**
 * What `npm start` prints once the server listens, for a person at a terminal: the catalogue in
 * one line (saying so when it is a sample of NASA's, as /health does), then where to send requests. The JSON log (src/log.ts) stays the operators' record;
 * `npm start` lowers it to warnings so these two lines end the start-up output.
 */
export function startLines(store: Store, url: string): string {
  const n = (x: number) => x.toLocaleString('en-US')
  const rovers = roverManifests(store)
    .map((m, i) => ({ slug: ROVERS[i]!.slug, total: m.total }))
    .filter((r) => r.total > 0)
    .sort((a, b) => b.total - a.total)
    .map((r) => `${r.slug} ${n(r.total)}`)
  const rows = store.manifest.rows
  const sample = sampleNote(store).sample ? ', a sample: `npm run fetch -- --all` mirrors the rest' : ''
  return [
    `catalogue: ${n(rows.photos)} photos (${rovers.join(', ')}), ${n(rows.locations)} locations, ${n(rows.panoramas)} panoramas; index ${store.version} (${store.manifest.kind}${sample})`,
    `listening on ${url}`,
  ].join('\n') + '\n'
}
