/**
 * Puts a scaled run beside a scale-1 run: how each figure grew with the rows.
 * Usage: bun bench/scale-table.ts SCALE1.json SCALED.json [--readme FILE] [--print]
 * Writes the table into bench/README.md between the scale markers (or prints it with --print).
 * The scaled run's goals are checked again here against the given scale-1 run.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { BenchResult, BuildFigures, StartSizeResult } from './lib/result'
import { checkGoals, GOALS } from './lib/goals'
import { round3 } from './lib/measure'
import { photosOf, scanGrowth } from './lib/scale-compare'

const START = '<!-- scale:start -->'
const END = '<!-- scale:end -->'

const cell = (x: number | string | undefined) => (x === undefined || (typeof x === 'number' && !Number.isFinite(x)) ? '–' : String(x))
const ratio = (a: number | undefined, b: number | undefined) => (a && b !== undefined ? `x${round3(b / a)}` : '–')
const row = (cells: Array<number | string | undefined>) => `| ${cells.map(cell).join(' | ')} |`
const mark = (met: boolean | null | undefined) => (met === true ? 'met' : met === false ? '**missed**' : '–')

function start(r: BenchResult): StartSizeResult | undefined {
  const s = r.scenarios['start-size']
  return s?.status === 'ok' ? s : undefined
}
function build(r: BenchResult): BuildFigures | undefined {
  const b = start(r)?.build ?? r.index.build
  return b && 'seconds' in b ? b : undefined
}
function buildNote(r: BenchResult): string | undefined {
  const b = start(r)?.build ?? r.index.build
  return b && 'failed' in b ? `failed: ${b.failed}` : undefined
}

/** The Markdown block: the scaled run's goals, then its figures beside the scale-1 run's. */
export function scaleTable(base: BenchResult, scaled: BenchResult, basePath = 'scale-1 run', scaledPath = 'scaled run'): string {
  const f = scaled.scale ?? NaN
  const g = scanGrowth(base, scaled)
  const goals = checkGoals(scaled, base)
  const [b1, bf] = [start(base), start(scaled)]
  const [k1, kf] = [build(base), build(scaled)]
  const h1 = base.scenarios.http?.status === 'ok' ? base.scenarios.http : undefined
  const hf = scaled.scenarios.http?.status === 'ok' ? scaled.scenarios.http : undefined
  const list = (h: typeof h1) => h?.targets.find((t) => t.name === 'list')
  const lines = [
    `Scale ${f} (\`${scaledPath}\`, ${scaled.date}, load average ${scaled.machine.load_avg_1m} → ${scaled.load_avg_1m_end ?? '?'}) beside scale 1 (\`${basePath}\`, ${base.date}, load average ${base.machine.load_avg_1m} → ${base.load_avg_1m_end ?? '?'}); ${scaled.machine.nproc} cores shared with other work. Rows x${g.rowsRatio}.`,
    '',
    '| goal at scale ' + f + ' | measured |  |',
    '|---|---|---|',
    ...goals.map((x) => row([x.goal, x.measured.replaceAll('|', '\\|'), mark(x.met)])),
    '',
    `| figure | scale 1 | scale ${f} | growth |`,
    '|---|---:|---:|---:|',
    row(['photos', photosOf(base), photosOf(scaled), `x${g.rowsRatio}`]),
    row(['build s', k1?.seconds, kf?.seconds ?? buildNote(scaled), ratio(k1?.seconds, kf?.seconds)]),
    row(['build peak RSS MiB', k1?.peak_rss_mb, kf?.peak_rss_mb, ratio(k1?.peak_rss_mb, kf?.peak_rss_mb)]),
    row(['index load ms', b1?.load_ms, bf?.load_ms, ratio(b1?.load_ms, bf?.load_ms)]),
    row(['RSS after load MiB', b1?.rss_mb, bf?.rss_mb, ratio(b1?.rss_mb, bf?.rss_mb)]),
    row(['index on disk MiB', b1 && round3(b1.index_bytes / 2 ** 20), bf && round3(bf.index_bytes / 2 ** 20), ratio(b1?.index_bytes, bf?.index_bytes)]),
    row(['HTTP list req/s (cached answer)', list(h1)?.rps, list(hf)?.rps, ratio(list(h1)?.rps, list(hf)?.rps)]),
    row(['HTTP list p99 ms at half saturation', h1?.half_saturation?.ours.p99_ms, hf?.half_saturation?.ours.p99_ms, ratio(h1?.half_saturation?.ours.p99_ms, hf?.half_saturation?.ours.p99_ms)]),
    '',
    `Engine in process, per shape (growth: p50 at scale ${f} / p50 at scale 1; scans may grow up to x${g.rowsRatio}, narrowed shapes keep p99 <= ${GOALS.narrowP99Ms} ms):`,
    '',
    `| shape | group | p50 ms x1 | p50 ms x${f} | growth | p99 ms x1 | p99 ms x${f} |`,
    '|---|---|---:|---:|---:|---:|---:|',
    ...g.all.map((s) => row([
      s.name, s.group, s.base_p50_ms, s.scaled_p50_ms,
      `x${s.ratio}${!s.same_request ? ' (another request)' : s.group === 'scan' && !(s.ratio <= g.rowsRatio) ? ' ✗' : ''}`,
      s.base_p99_ms, `${cell(s.scaled_p99_ms)}${s.group === 'narrow' && !((s.scaled_p99_ms ?? Infinity) <= GOALS.narrowP99Ms) ? ' ✗' : ''}`,
    ])),
  ]
  const peers = (['duckdb', 'postgres'] as const).map((n) => scaled.scenarios[n]).filter((p) => p && p.status === 'skipped')
  if (peers.length) lines.push('', `Peers at scale ${f}: ${peers[0]!.status === 'skipped' ? peers[0]!.reason : ''}.`)
  return lines.join('\n')
}

/** Replaces the block between the scale markers (appends a section with them when absent). */
export function withScaleBlock(readme: string, block: string): string {
  const body = `${START}\n${block.trim()}\n${END}`
  const a = readme.indexOf(START)
  const b = readme.indexOf(END)
  if (a >= 0 && b > a) return readme.slice(0, a) + body + readme.slice(b + END.length)
  return readme.trimEnd() + '\n\n## Scale\n\n' + body + '\n'
}

if (import.meta.main) {
  const args = process.argv.slice(2)
  const files = args.filter((a) => !a.startsWith('--') && args[args.indexOf(a) - 1] !== '--readme')
  const readme = args.includes('--readme') ? args[args.indexOf('--readme') + 1] : join(import.meta.dir, 'README.md')
  if (files.length !== 2 || !files.every((f) => existsSync(f))) {
    console.error('usage: bun bench/scale-table.ts SCALE1.json SCALED.json [--readme FILE] [--print]')
    process.exit(2)
  }
  const [base, scaled] = files.map((f) => JSON.parse(readFileSync(f, 'utf8')) as BenchResult)
  if ((base.scale ?? 1) !== 1 || (scaled.scale ?? 1) === 1) {
    console.error(`the first file must be a scale-1 run and the second a scaled run (got scale ${base.scale ?? 1} and ${scaled.scale ?? 1})`)
    process.exit(2)
  }
  const block = scaleTable(base, scaled, files[0].replace(/^.*\/bench\//, 'bench/'), files[1].replace(/^.*\/bench\//, 'bench/'))
  if (args.includes('--print')) console.log(block)
  else {
    writeFileSync(readme, withScaleBlock(readFileSync(readme, 'utf8'), block))
    console.error(`scale-table: wrote the table into ${readme}`)
  }
}
