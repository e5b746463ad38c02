/**
 * `npm test`: runs every test with `bun test` and ends with the line `N passed, N failed`
 * (plus `, N skipped`), which CI reads. Tests that need a real redis-server use one when it is
 * installed; as root on Debian this script installs it first (the project installs what it needs).
 */
import { spawnSync, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'

function has(cmd: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0
}

if (!has('redis-server') && process.getuid?.() === 0 && has('apt-get')) {
  console.error('[test] redis-server is missing: installing it from Debian packages for the Redis rate-limit tests')
  spawnSync('sh', ['-c', '(apt-get install -y -qq redis-server || (apt-get update -qq && apt-get install -y -qq redis-server)) >/dev/null 2>&1'], { stdio: 'inherit' })
  // The package starts a system service we do not use: tests start their own servers on free ports.
  spawnSync('sh', ['-c', 'service redis-server stop >/dev/null 2>&1 || true'], { stdio: 'ignore' })
}

// The OpenAPI contract tests' tools (tools/openapi: redocly, openapi-typescript with TypeScript 5,
// ajv) are installed before the test process starts: installed from inside it, Bun's module
// resolution would still see the folder as it was when the run began.
// The import-graph check's tools (tools/graph: dependency-cruiser, TypeScript 5) likewise.
for (const [folder, marker] of [['openapi', 'ajv-formats'], ['graph', 'dependency-cruiser']]) {
  if (!existsSync(join(import.meta.dir, '../tools', folder, 'node_modules', marker))) {
    console.error(`[test] installing the tools of tools/${folder}`)
    // npm's notices (engine ranges of the tools' own dependencies) are shown only when the install fails.
    const r = spawnSync('npm', ['install', '--no-audit', '--no-fund'], { cwd: join(import.meta.dir, '../tools', folder), encoding: 'utf8' })
    if (r.status !== 0) process.stderr.write(`${r.stdout ?? ''}${r.stderr ?? ''}`)
  }
}

// bunfig's [test] timeout is not applied by every Bun release: the flag is.
const args = ['test', '--timeout', '60000', ...process.argv.slice(2)]
const child = spawn(process.execPath, args, { stdio: ['inherit', 'pipe', 'pipe'], env: process.env })
let tail = ''
const keep = (chunk: Buffer, out: NodeJS.WriteStream) => {
  out.write(chunk)
  tail = (tail + chunk.toString()).slice(-4000)
}
child.stdout.on('data', (c) => keep(c, process.stdout))
child.stderr.on('data', (c) => keep(c, process.stderr))
child.on('close', (code) => {
  const num = (re: RegExp) => Number(re.exec(tail)?.[1] ?? 0)
  const passed = num(/^\s*(\d+) pass\b/m)
  const failed = num(/^\s*(\d+) fail\b/m)
  const skipped = num(/^\s*(\d+) skip\b/m)
  const ranNothing = passed + failed === 0
  // A run that crashed before the summary counts as a failure, never as a silent pass.
  const failedOut = failed || (code !== 0 || ranNothing ? Math.max(1, failed) : 0)
  console.log(`${passed} passed, ${failedOut} failed${skipped ? `, ${skipped} skipped` : ''}`)
  process.exit(failedOut ? 1 : 0)
})
