import type { ScenarioName } from './bench-options'
import type { ScenarioOptions } from './scenario-options'

type Runner = (o: ScenarioOptions) => Promise<unknown>

/**
 * The module of each scenario, imported only when it runs (the peers pull in DuckDB and start
 * PostgreSQL). Every name of SCENARIOS and ON_DEMAND_SCENARIOS has its row (the type says so)
 * and every row is a static import path the type check resolves: a missing scenario file fails
 * `npm run typecheck` and test/bench-paths.test.ts, it is never skipped at run time.
 */
export const SCENARIO_RUNNERS: Record<ScenarioName, () => Promise<Runner>> = {
  'start-size': async () => (await import('../start-size')).benchStartSize,
  engine: async () => (await import('../engine')).benchEngine,
  duckdb: async () => (await import('../peers/duckdb')).benchDuckdb,
  postgres: async () => (await import('../peers/postgres')).benchPostgres,
  http: async () => (await import('../http')).benchHttp,
  gatekeeping: async () => {
    const { benchGatekeeping } = await import('../gatekeeping')
    return async (o) => ({ result: await benchGatekeeping(o) })
  },
  conventions: async () => (await import('../conventions')).benchConventions,
  'scale-out': async () => (await import('../scale-out')).benchScaleOut,
  export: async () => (await import('../export')).benchExport,
  ingest: async () => (await import('../ingest')).benchIngest,
  'fan-out': async () => (await import('../fan-out')).benchFanOut,
}
