/**
 * Measures deriveLocations/derivePanoramas on the full synthetic catalogue (seed default, scale 1)
 * and the p50/p99 of listLocations/listPanoramas renders over the derived tables.
 * Run: cd /work/main && bun bench/derive/measure-derive.ts
 */
import { generateSynthetic } from '../../index-builder/sources/synthetic'
import { deriveLocations } from '../../index-builder/derive/locations'
import { derivePanoramas } from '../../index-builder/derive/panoramas'
import { listLocations } from '../../src/query/answer/locations-list'
import { listPanoramas } from '../../src/query/answer/panoramas-list'
import type { Store } from '../../src/store/store'

let t = performance.now()
const cat = generateSynthetic({ scale: 1 })
console.log(`generate: ${(performance.now() - t).toFixed(0)} ms, ${cat.photos.length} photos`)
const runs: Array<{ loc: number; pano: number }> = []
let locations: ReturnType<typeof deriveLocations> | undefined
let panoramas: ReturnType<typeof derivePanoramas> | undefined
for (let i = 0; i < 3; i++) {
  t = performance.now()
  locations = deriveLocations(cat.photos)
  const loc = performance.now() - t
  t = performance.now()
  panoramas = derivePanoramas(cat.photos)
  runs.push({ loc, pano: performance.now() - t })
}
console.log(`locations: ${locations!.length} rows; panoramas: ${panoramas!.length} rows`)
for (const r of runs) console.log(`deriveLocations ${r.loc.toFixed(0)} ms, derivePanoramas ${r.pano.toFixed(0)} ms`)

const store = { version: 'x', photos: cat.photos, locations: locations!, panoramas: panoramas! } as unknown as Store
const shapes: Array<[string, (q: URLSearchParams) => string, string]> = [
  ['locations default', (q) => listLocations(store, q, 'http://localhost'), ''],
  ['locations per_page=100', (q) => listLocations(store, q, 'http://localhost'), 'per_page=100'],
  ['locations sol window + min_photos, page 3', (q) => listLocations(store, q, 'http://localhost'), 'rovers=curiosity&sol_min=1000&sol_max=2000&min_photos=50&page=3'],
  ['locations deep page', (q) => listLocations(store, q, 'http://localhost'), 'page=200&per_page=25&min_photos=2'],
  ['panoramas default', (q) => listPanoramas(store, q, 'http://localhost'), ''],
  ['panoramas per_page=100', (q) => listPanoramas(store, q, 'http://localhost'), 'per_page=100'],
  ['panoramas sol window', (q) => listPanoramas(store, q, 'http://localhost'), 'rovers=perseverance,curiosity&sol_min=500&sol_max=900'],
  ['panoramas min_photos deep page', (q) => listPanoramas(store, q, 'http://localhost'), 'min_photos=20&page=400'],
]
for (const [name, fn, qs] of shapes) {
  const q = new URLSearchParams(qs)
  for (let i = 0; i < 200; i++) fn(q)
  const times: number[] = []
  let bytes = 0
  for (let i = 0; i < 3000; i++) {
    const s = performance.now()
    bytes = fn(q).length
    times.push(performance.now() - s)
  }
  times.sort((a, b) => a - b)
  const pct = (p: number) => (times[Math.floor(times.length * p)]! * 1000).toFixed(0)
  console.log(`${name.padEnd(40)} p50 ${pct(0.5)} µs  p99 ${pct(0.99)} µs  (${bytes} bytes)`)
}
