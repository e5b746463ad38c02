import { join } from 'node:path'
import type { PeerResult } from '../lib/result'
import { loadEngine } from '../lib/engine-api'
import { prepareShapes } from '../lib/prepare-shapes'
import { timeOnce, round3 } from '../lib/measure'
import { oursInPeerSampling, peerSampling, type ScenarioOptions } from '../lib/scenario-options'
import { csvNote, exportCsvOnce, ROVERS_INSERT } from './export-csv'
import { createTables, POSTGRES_INDEXES } from './peer-schema'
import { benchPeerShapes, type PeerDb } from './bench-peer'
import { startPgCluster } from './pg-cluster'
import { peerGoalFor } from '../lib/goals'


/**
 * Scenario 2b: PostgreSQL with the public service's b-tree indexes, in a throwaway cluster on
 * loopback, same rows (COPY from CSV exported from the store), same queries as hand-written
 * SQL over one connection (Bun's built-in client), answers checked equal before timing.
 */
export async function benchPostgres(o: ScenarioOptions): Promise<PeerResult> {
  const engine = await loadEngine()
  const store = await engine.loadStore(o.indexDir)
  const shapes = prepareShapes(engine, store)
  const pg = await startPgCluster(o.log, !o.quick)
  try {
    const csv = await timeOnce(() => exportCsvOnce(store, join(o.workDir ?? pg.shareDir, 'csv')))
    o.log(`postgres: ${csv.value.reused ? 'reused' : 'exported'} ${(csv.value.bytes / 2 ** 20).toFixed(0)} MiB of CSV in ${round3(csv.ms)} ms`)
    const load = await timeOnce(async () => {
      for (const ddl of createTables()) await pg.sql.unsafe(ddl)
      await pg.sql.unsafe(ROVERS_INSERT)
      for (const t of ['photos', 'locations', 'panoramas'] as const)
        if (csv.value.rows[t] > 0) await pg.sql.unsafe(`COPY ${t} FROM '${csv.value[t]}' WITH (FORMAT csv)`)
    })
    const index = await timeOnce(async () => {
      for (const ddl of POSTGRES_INDEXES) await pg.sql.unsafe(ddl)
      await pg.sql.unsafe('VACUUM ANALYZE')
    })
    o.log(`postgres: loaded in ${round3(load.ms)} ms, indexed and analysed in ${round3(index.ms)} ms`)
    const db: PeerDb = {
      name: 'postgres',
      version: pg.version,
      query: async (sql) => (await pg.sql.unsafe(sql).values()) as unknown[][],
    }
    const results = await benchPeerShapes(db, shapes, engine, store, {
      ours: oursInPeerSampling(o.quick),
      peer: peerSampling(o.quick),
      goalSpeedup: (shape) => peerGoalFor('PostgreSQL', shape.work),
      log: o.log,
    })
    return {
      peer: 'PostgreSQL',
      version: pg.version,
      setup: {
        rows: store.photos.length,
        csv: csvNote(csv),
        load_ms: round3(load.ms),
        index_analyze_ms: round3(index.ms),
        settings: 'shared_buffers=1GB work_mem=64MB jit=off, parallel workers default; loopback TCP, one connection',
        indexes: POSTGRES_INDEXES.length,
      },
      shapes: results,
    }
  } finally {
    await pg.stop()
  }
}
