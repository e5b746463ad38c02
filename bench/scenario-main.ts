/**
 * Runs one scenario in a fresh process (so one scenario's memory, JIT state and peers never
 * colour another's figures) and writes its result as JSON.
 * Usage: bun bench/scenario-main.ts NAME OPTIONS_JSON RESULT_FILE
 */
import { writeFileSync } from 'node:fs'
import type { ScenarioName } from './lib/bench-options'
import type { ScenarioOptions } from './lib/scenario-options'
import { SCENARIO_RUNNERS } from './lib/scenario-runners'
import { ScenarioSkip } from './lib/scenario-skip'

const [name, optionsJson, resultFile] = process.argv.slice(2)
const options: ScenarioOptions = { ...JSON.parse(optionsJson), log: (line: string) => process.stderr.write(line + '\n') }

async function run(): Promise<unknown> {
  const runner = SCENARIO_RUNNERS[name as ScenarioName]
  if (!runner) throw new Error(`unknown scenario ${name}`)
  return (await runner())(options)
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
