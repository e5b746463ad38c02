/**
 * The import-graph check: dependency-cruiser, run from tools/graph with the TypeScript 5 parser it
 * needs (test/setup/tool-folder.ts installs it on first use), over the rules in
 * tools/graph/import-rules.cjs.
 */
import { join } from 'node:path'
import { toolFolder } from './tool-folder'

const GRAPH = toolFolder('graph', ['dependency-cruiser/bin/dependency-cruiser.mjs', 'typescript/lib/typescript.js'])

export const ensureGraphTools = GRAPH.ensure
export const IMPORT_RULES = join(GRAPH.dir, 'import-rules.cjs')

/** One broken rule: `to` is the imported file (or the unresolved specifier), `cycle` the files around a cycle. */
export interface Violation {
  rule: string
  from: string
  to: string
  cycle?: string[]
}

/** The rule violations among `folders` (relative to `cwd`), as dependency-cruiser reports them. */
export function importViolations(cwd: string, folders: string[]): Violation[] {
  const cli = join(GRAPH.dir, 'node_modules/dependency-cruiser/bin/dependency-cruiser.mjs')
  const r = Bun.spawnSync([process.execPath, cli, '--config', IMPORT_RULES, '--output-type', 'json', ...folders], { cwd, stdout: 'pipe', stderr: 'pipe' })
  const out = r.stdout.toString()
  if (!out.trim().startsWith('{')) throw new Error(`dependency-cruiser gave no report (exit ${r.exitCode}): ${r.stderr.toString().slice(0, 2000)}`)
  const report = JSON.parse(out) as { summary: { violations: Array<{ rule: { name: string }; from: string; to: string; cycle?: Array<{ name: string } | string> }> } }
  return report.summary.violations.map((v) => ({
    rule: v.rule.name,
    from: v.from,
    to: v.to,
    ...(v.cycle ? { cycle: v.cycle.map((c) => (typeof c === 'string' ? c : c.name)) } : {}),
  }))
}
