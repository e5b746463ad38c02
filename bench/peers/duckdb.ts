import { rmSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DuckDBInstance } from '@duckdb/node-api'
import type { PeerResult } from '../lib/result'
import { loadEngine } from '../lib/engine-api'
import { prepareShapes } from '../lib/prepare-shapes'
import { timeOnce, round3 } from '../lib/measure'
import { oursInPeerSampling, peerSampling, type ScenarioOptions } from '../lib/scenario-options'
import { csvNote, exportCsvOnce, ROVERS_INSERT } from './export-csv'
import { createTables } from './peer-schema'
import { benchPeerShapes, type PeerDb } from './bench-peer'
import { peerGoalFor } from '../lib/goals'


/**
 * Scenario 2a: DuckDB in process (@duckdb/node-api), same rows loaded from CSV exported from
 * the store, same queries as hand-written SQL, answers checked equal before timing.
 */
export async function benchDuckdb(o: ScenarioOptions): Promise<PeerResult> {
  const engine = await loadEngine()
  const store = await engine.loadStore(o.indexDir)
  const shapes = prepareShapes(engine, store)
  const own = o.workDir ? undefined : mkdtempSync(join(tmpdir(), 'mars-bench-duckdb-'))
  try {
    const csv = await timeOnce(() => exportCsvOnce(store, join(o.workDir ?? own!, 'csv')))
    o.log(`duckdb: ${csv.value.reused ? 'reused' : 'exported'} ${(csv.value.bytes / 2 ** 20).toFixed(0)} MiB of CSV in ${round3(csv.ms)} ms`)
    const instance = await DuckDBInstance.create(':memory:')
    const conn = await instance.connect()
    const load = await timeOnce(async () => {
      for (const ddl of createTables()) await conn.run(ddl)
      await conn.run(ROVERS_INSERT)
      for (const t of ['photos', 'locations', 'panoramas'] as const)
        if (csv.value.rows[t] > 0) await conn.run(`COPY ${t} FROM '${csv.value[t]}' (FORMAT csv, HEADER false, DELIMITER ',', QUOTE '"', ESCAPE '"')`)
    })
    o.log(`duckdb: loaded in ${round3(load.ms)} ms`)
    const version = String((await conn.runAndReadAll('SELECT version()')).getRowsJS()[0][0])
    const db: PeerDb = {
      name: 'duckdb',
      version,
      query: async (sql) => (await conn.runAndReadAll(sql)).getRowsJS() as unknown[][],
    }
    const results = await benchPeerShapes(db, shapes, engine, store, {
      ours: oursInPeerSampling(o.quick),
      peer: peerSampling(o.quick),
      goalSpeedup: (shape) => peerGoalFor('DuckDB', shape.work),
      log: o.log,
    })
    conn.closeSync()
    instance.closeSync()
    return {
      peer: 'DuckDB',
      version,
      setup: { rows: store.photos.length, csv: csvNote(csv), load_ms: round3(load.ms), threads: 'default (all cores)', indexes: 'primary keys only (column scans and zone maps)' },
      shapes: results,
    }
  } finally {
    if (own) rmSync(own, { recursive: true, force: true })
  }
}
