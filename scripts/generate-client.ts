/**
 * `npm run client:generate`: regenerates clients/typescript/src/schema.ts from the OpenAPI
 * document the app serves (openapi-typescript, run from tools/openapi with its own TypeScript 5).
 * The typed-client test fails while the committed file differs from what this writes.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'

if (process.argv.includes('--help') || process.argv.includes('-h')) {
  console.log('Usage: npm run client:generate\n\nRegenerates clients/typescript/src/schema.ts from the served OpenAPI document (needs the test index: npm test builds it).')
  process.exit(0)
}

const { makeTestApp } = await import('../test/setup/test-app')
const { ensureOpenApiTools, toolBin, TOOLS } = await import('../test/setup/openapi-tools')
process.env.INDEX_DIR ??= resolve(import.meta.dir, '../data/index-test')
await ensureOpenApiTools()
const t = await makeTestApp()
const doc = await (await t.app.handle(new Request('http://mars-photos.test/api/v2/openapi.json'))).text()
await t.close()
const dir = mkdtempSync(join(tmpdir(), 'mv-gen-'))
writeFileSync(join(dir, 'openapi.json'), doc)
const out = resolve(import.meta.dir, '../clients/typescript/src/schema.ts')
const r = Bun.spawnSync([toolBin('openapi-typescript'), join(dir, 'openapi.json'), '-o', out], { cwd: TOOLS, stdout: 'inherit', stderr: 'inherit' })
rmSync(dir, { recursive: true, force: true })
process.exit(r.exitCode ?? 1)
