/**
 * Runs one scenario in a fresh process (so one scenario's memory, JIT state and peers never
 * colour another's figures) and writes its result as JSON.
 * Usage: bun bench/scenario-main.ts NAME OPTIONS_JSON RESULT_FILE
 */
import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { ScenarioOptions } from './lib/scenario-options'
import { ScenarioSkip } from './lib/scenario-skip'

const [name, optionsJson, resultFile] = process.argv.slice(2)
const options: ScenarioOptions = { ...JSON.parse(optionsJson), log: (line: string) => process.stderr.write(line + '\n') }

async function run(): Promise<unknown> {
  switch (name) {
    case 'engine': return (await import('./engine')).benchEngine(options)
    case 'duckdb': return (await import('./peers/duckdb')).benchDuckdb(options)
    case 'postgres': return (await import('./peers/postgres')).benchPostgres(options)
    case 'http': return (await import('./http')).benchHttp(options)
    case 'conventions': return (await import('./conventions')).benchConventions(options)
    case 'start-size': return (await import('./start-size')).benchStartSize(options)
    case 'scale-out': return (await import('./scale-out')).benchScaleOut(options)
    case 'export': return (await import('./export')).benchExport(options)
    case 'ingest': return (await import('./ingest')).benchIngest(options)
    case 'fan-out': return (await import('./fan-out')).benchFanOut(options)
    case 'gatekeeping': {
      const m = (await import(join(import.meta.dir, 'gatekeeping.ts'))) as { benchGatekeeping?: (o: unknown) => Promise<unknown> }
      if (typeof m.benchGatekeeping !== 'function') throw new Error('bench/gatekeeping.ts exports no benchGatekeeping')
      return { result: await m.benchGatekeeping(options) }
    }
    default: throw new Error(`unknown scenario ${name}`)
  }
}

if (name === 'gatekeeping' && !existsSync(join(import.meta.dir, 'gatekeeping.ts'))) {
  writeFileSync(resultFile, JSON.stringify({ status: 'skipped', reason: 'bench/gatekeeping.ts is not in the tree yet' }))
  process.exit(0)
}

try {
  const result = await run()
  writeFileSync(resultFile, JSON.stringify({ status: 'ok', ...(result as object) }))
  process.exit(0)
} catch (e) {
  if (e instanceof ScenarioSkip) {
    process.stderr.write(`${name}: skipped: ${e.message}\n`)
    writeFileSync(resultFile, JSON.stringify({ status: 'skipped', reason: e.message }))
    process.exit(0)
  }
  const error = (e as Error).message.split('\n')[0]
  process.stderr.write(`${name}: failed: ${(e as Error).stack ?? error}\n`)
  writeFileSync(resultFile, JSON.stringify({ status: 'failed', error }))
  process.exit(1)
}
