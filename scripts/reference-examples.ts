/**
 * `npm run docs:examples`: records the example answer of every operation the reference at
 * /api/v2/docs shows (plugins/docs/operation-examples.ts) from the default index (built first
 * when missing, as `npm start` does) into plugins/docs/reference-examples.json. Run it after a
 * change of the default catalogue or of an answer's shape; test/reference-examples.test.ts
 * fails while the file is stale.
 */
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { recordExamples } from '../plugins/docs/operation-examples'
import { loadStore } from '../src/store/load-store'
import { makeTestApp } from '../test/setup/test-app'

const ROOT = join(import.meta.dir, '..')
const INDEX = join(ROOT, 'data', 'index')
const OUT = join(ROOT, 'plugins', 'docs', 'reference-examples.json')

const built = spawnSync(process.execPath, ['index-builder/cli.ts', '--if-missing'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] })
if (built.status !== 0) process.exit(built.status ?? 1)
const t = await makeTestApp({ store: await loadStore(INDEX) })
try {
  const examples = await recordExamples((url, init) => t.request(url, init), 'http://localhost')
  await Bun.write(OUT, JSON.stringify(examples, null, 2) + '\n')
  process.stdout.write(`wrote ${Object.keys(examples).length} example answers to ${OUT.slice(ROOT.length + 1)}\n`)
} finally {
  await t.close()
}
