/**
 * Builds the synthetic catalogue into a fresh folder in a fresh process and prints the wall
 * time as one JSON line. Usage: bun bench/start-size/build-probe.ts OUT_DIR SCALE SEED
 */
import { buildIndex } from '../../index-builder/build-index'

const [out, scale, seed] = process.argv.slice(2)
const t0 = Bun.nanoseconds()
const built = await buildIndex({ out, synthetic: { seed: Number(seed), scale: Number(scale) } })
console.log(JSON.stringify({ build_ms: (Bun.nanoseconds() - t0) / 1e6, photos: built.manifest.rows.photos }))
