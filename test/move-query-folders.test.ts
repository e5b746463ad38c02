import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { spawnSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { FOLDERS, moves, rewriteText, STAY, unplaced, type Move } from '../scripts/move-query-folders'
import { ensureGraphTools, importViolations, type Violation } from './setup/graph-tools'

/**
 * scripts/move-query-folders.ts, the script that groups src/query/ into its stage folders: run on
 * a copy of this tree (so the check holds for whatever the tree holds today, moved or not), every
 * row lands in its folder, every import and path mention follows, the import rules (the stage
 * directions included) hold on the result, and a second run changes nothing.
 */
const ROOT = resolve(import.meta.dir, '..')
const SCRIPT = 'scripts/move-query-folders.ts'

function sh(cwd: string, cmd: string[]): { code: number; out: string } {
  const r = spawnSync(cmd[0]!, cmd.slice(1), { cwd, encoding: 'utf8' })
  return { code: r.status ?? -1, out: `${r.stdout ?? ''}${r.stderr ?? ''}` }
}

/** A git repository holding this tree's files as they are now (tracked and new), without data or results. */
function copyOfTree(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mars-move-query-'))
  const files = sh(ROOT, ['git', 'ls-files', '-co', '--exclude-standard']).out.split('\n')
  for (const f of files) {
    if (!f || f.startsWith('bench/results/') || f.startsWith('data/') || !existsSync(join(ROOT, f))) continue
    mkdirSync(dirname(join(dir, f)), { recursive: true })
    copyFileSync(join(ROOT, f), join(dir, f))
  }
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'))
  sh(dir, ['git', 'init', '-q'])
  sh(dir, ['git', 'add', '-A'])
  sh(dir, ['git', '-c', 'user.name=move test', '-c', 'user.email=move-test@example.invalid', 'commit', '-q', '--no-verify', '-m', 'the tree before the moves'])
  return dir
}

const byFrom = (rows: Move[]) => new Map(rows.map((m) => [m.from, m]))

describe('the folder table', () => {
  test('places every file directly in src/query/ (a new file there needs a row before the moves run)', () => {
    expect(unplaced(ROOT)).toEqual([])
  })

  test('keeps every stage folder at 13 files or fewer, and gives each file one place', () => {
    for (const [folder, files] of Object.entries(FOLDERS)) expect({ folder, n: files.length <= 13 }).toEqual({ folder, n: true })
    const names = moves().map((m) => m.to)
    expect(new Set(names).size).toBe(names.length)
    for (const f of STAY) expect(names).not.toContain(`src/query/${f}`)
  })

  test('has moved every file: src/query/ holds only its face directly, the stages in folders', () => {
    const flat = readdirSync(join(ROOT, 'src/query')).filter((f) => f.endsWith('.ts')).sort()
    expect(flat).toEqual([...STAY].sort())
  })

  test('names a file it does not place', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mars-move-unplaced-'))
    try {
      mkdirSync(join(dir, 'src/query/stats'), { recursive: true })
      for (const f of ['index.ts', 'warm-snapshot.ts', 'filters.ts', 'brand-new-source.ts', 'stats/photo-stats.ts']) writeFileSync(join(dir, 'src/query', f), '')
      expect(unplaced(dir)).toEqual(['src/query/brand-new-source.ts'])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('rewriting one file', () => {
  const rows: Move[] = [
    { folder: 'scan', from: 'src/query/filters.ts', to: 'src/query/scan/filters.ts' },
    { folder: 'render', from: 'src/query/envelope.ts', to: 'src/query/render/envelope.ts' },
  ]

  test('repoints static, multi-line, type-only, dynamic and .ts-suffixed specifiers of a file that stayed, in their own style', () => {
    const text = [
      "import { a } from './filters'",
      'import {\n  b,\n} from "./envelope"',
      "import type { C } from './filters.ts'",
      "const m = await import('./envelope')",
      "export { d } from './filters'",
      "import { e } from './sources'",
    ].join('\n')
    expect(rewriteText(text, 'src/query/list-photos.ts', 'src/query/list-photos.ts', byFrom(rows), new Map())).toBe(
      [
        "import { a } from './scan/filters'",
        'import {\n  b,\n} from "./render/envelope"',
        "import type { C } from './scan/filters.ts'",
        "const m = await import('./render/envelope')",
        "export { d } from './scan/filters'",
        "import { e } from './sources'",
      ].join('\n'),
    )
  })

  test('recomputes the specifiers of a moved file from its new folder, to moved and unmoved files alike', () => {
    const text = "import { a } from './envelope'\nimport type { Store } from '../store/store'"
    expect(rewriteText(text, 'src/query/filters.ts', 'src/query/scan/filters.ts', byFrom(rows), new Map())).toBe(
      "import { a } from '../render/envelope'\nimport type { Store } from '../../store/store'",
    )
  })

  test('repoints a path from the repository root in comments and Markdown links, and leaves other paths alone', () => {
    const text = 'see src/query/envelope.ts and [the filters](../src/query/filters.ts); not fixtures/x/src/query/filters.ts, not src/query/filters.tsx'
    expect(rewriteText(text, 'docs/a.md', 'docs/a.md', byFrom(rows), new Map())).toBe(
      'see src/query/render/envelope.ts and [the filters](../src/query/scan/filters.ts); not fixtures/x/src/query/filters.ts, not src/query/filters.tsx',
    )
  })
})

describe('the script on a copy of this tree', () => {
  let dir: string
  let first: { code: number; out: string }
  let found: Violation[]

  beforeAll(async () => {
    await ensureGraphTools()
    dir = copyOfTree()
    first = sh(dir, [process.execPath, SCRIPT, '--all'])
    found = first.code === 0 ? importViolations(dir, ['app', 'src', 'plugins', 'index-builder', 'bench', 'test', 'scripts', 'clients']) : []
  }, 300_000)

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  test('moves every row into its stage folder with git mv (history follows the files)', () => {
    expect(first.code).toBe(0)
    // Rows naming files of branches not merged yet are absent from this tree.
    const present = moves().filter((m) => existsSync(join(ROOT, m.from)) || existsSync(join(ROOT, m.to)))
    expect(present.length).toBeGreaterThanOrEqual(43)
    for (const m of present) expect({ m: m.to, there: existsSync(join(dir, m.to)), old: existsSync(join(dir, m.from)) }).toEqual({ m: m.to, there: true, old: false })
    const renamed = sh(dir, ['git', 'status', '--porcelain']).out.split('\n').filter((l) => l.startsWith('R'))
    expect(renamed.length).toBeGreaterThanOrEqual(moves().filter((m) => existsSync(join(ROOT, m.from))).length)
  })

  test('leaves every import resolving and every stage importing only the stages below it (the import rules on the moved tree)', () => {
    expect(found.map((v) => `${v.rule}: ${v.from} -> ${v.to}`)).toEqual([])
  })

  test('leaves no mention of an old path in the source and docs', () => {
    const files = sh(dir, ['git', 'ls-files']).out.split('\n').filter((f) => /\.(ts|md|cjs|json)$/.test(f) && !f.startsWith('CHANGELOG') && f !== SCRIPT && f !== 'test/move-query-folders.test.ts')
    const stale: string[] = []
    for (const f of files) {
      const text = readFileSync(join(dir, f), 'utf8')
      for (const m of moves()) if (new RegExp(`(?<![\\w.-])(?<![\\w-]/)${m.from.replaceAll('.', '\\.')}(?![\\w-])`).test(text)) stale.push(`${f}: ${m.from}`)
    }
    expect(stale).toEqual([])
  })

  test('changes nothing when run again', () => {
    const before = sh(dir, ['git', 'diff', '--cached', '--stat']).out
    const again = sh(dir, [process.execPath, SCRIPT, '--all'])
    expect(again).toEqual({ code: 0, out: 'nothing to do\n' })
    expect(sh(dir, ['git', 'status', '--porcelain']).out.split('\n').some((l) => /^.[MD]/.test(l))).toBe(false)
    expect(sh(dir, ['git', 'diff', '--cached', '--stat']).out).toBe(before)
  })

  test('refuses to run while src/query/ holds a file the table does not place, and names it', () => {
    writeFileSync(join(dir, 'src/query/brand-new-source.ts'), 'export const x = 1\n')
    const r = sh(dir, [process.execPath, SCRIPT, '--check'])
    expect(r.code).toBe(1)
    expect(r.out).toContain('src/query/brand-new-source.ts')
  })
})
