/**
 * Groups the flat files of src/query/ into one folder per stage (docs/ARCHITECTURE.md, "The
 * query engine by stage"), one folder per run so each folder is one commit:
 *
 *   npx bun scripts/move-query-folders.ts --check          what is placed, moved and left (changes nothing)
 *   npx bun scripts/move-query-folders.ts --folder bytes   moves one folder's files, repoints every reference
 *   npx bun scripts/move-query-folders.ts --all            every folder, in FOLDER_ORDER
 *   npx bun scripts/move-query-folders.ts --rewrite        repoints references only (code merged after a move)
 *
 * The table below places every file that sits directly in src/query/: a file it does not place
 * (new code of a branch merged since) stops the run with its name, so a row is added for it
 * before anything moves. Files are moved with `git mv` (history follows them); then every
 * import, export-from, require, dynamic import and relative path string in the tree's source
 * and docs that names a moved file is rewritten from the file's new place, and so are the
 * `src/query/<file>.ts` mentions in comments and Markdown. A run after the moves changes
 * nothing; a run on a tree where a later merge brought back an old import path repoints it.
 * The import directions between the folders are held by tools/graph/import-rules.cjs.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { basename, dirname, join, posix, resolve } from 'node:path'

const ROOT = resolve(import.meta.dir, '..')
const QUERY = 'src/query'

/**
 * Stage folder -> the files it receives: a bare name is a file of src/query/, a path is a file
 * elsewhere in the tree that belongs to the stage. Folders are listed in the order they move
 * (cold stages first, the ones feature work edits most last). A row may name a file a branch not
 * yet merged adds (the related photos' distance-page, related-params, related-members,
 * related-photos): on a tree without it the row is left out.
 */
export const FOLDERS: Record<string, string[]> = {
  // Byte writers every JSON, CSV and Arrow answer renders into; import nothing else of src/query/.
  bytes: ['byte-sink.ts', 'byte-memo.ts', 'float32-text.ts', 'date-bytes.ts', 'day-text.ts', 'iso-time.ts', 'json-string.ts'],
  // Serialised answers and the byte bound of the texts they keep.
  cache: ['response-cache.ts', 'dropped-texts.ts'],
  // Rows at sorted positions, cursors, and paging over a derived table's row ranges.
  page: ['run-query.ts', 'select-page.ts', 'nth-element.ts', 'cursor.ts', 'src/resources/table-ranges.ts', 'distance-page.ts'],
  // One orchestrator per answer: parse, run, render.
  answer: ['list-photos.ts', 'get-photo.ts', 'batch-photos.ts', 'locations-list.ts', 'panoramas-list.ts', 'related-photos.ts'],
  // Per-snapshot aggregates beside the statistics that already live there.
  stats: ['rover-manifest.ts', 'catalogue-share.ts'],
  // A requested order as packed keys, and ordered walks of a source.
  order: ['order.ts', 'sort-values.ts', 'walk.ts'],
  // Where a query's rows come from: compiled filters, sources, grids, the count.
  plan: ['query-plan.ts', 'sources.ts', 'nasa-id-source.ts', 'intersect-sources.ts', 'photo-grids.ts', 'grid-match.ts', 'rover-groups.ts'],
  // Each filter once, as a row-test template, and the loops generated from them.
  scan: ['filters.ts', 'row-test.ts'],
  // Query text to the engine's typed request.
  params: ['param-parsers.ts', 'photo-params.ts', 'photo-fields.ts', 'src/resources/derived-list-params.ts', 'related-params.ts'],
  // Rows to JSON bytes.
  render: ['photo-json.ts', 'photo-fragments.ts', 'image-prefixes.ts', 'envelope.ts', 'panorama-json.ts', 'record-arena.ts', 'related-members.ts'],
}

/** Files that stay directly in src/query/: the engine's public face. */
export const STAY = ['index.ts', 'warm-snapshot.ts']

/** Where the source and docs that may name a moved file live (node_modules and results skipped). */
const SCANNED = ['src', 'plugins', 'app', 'index-builder', 'bench', 'test', 'scripts', 'tools', 'clients', 'docs', 'deploy']
const SCANNED_ROOT_FILES = ['README.md', 'CONTRIBUTING.md', 'SECURITY.md', 'tsconfig.json', 'package.json', 'bunfig.toml']
const SKIPPED_DIRS = new Set(['node_modules', 'results', '.git'])
/** This script and its test name the old paths on purpose (the table): never rewritten. */
const SELF = new Set(['scripts/move-query-folders.ts', 'test/move-query-folders.test.ts'])
const TEXT = /\.(ts|tsx|js|mjs|cjs|md|json|ya?ml|toml|html|txt)$/
/** Largest folder the layout allows (house style: a reader never scans forty files to find one). */
const MAX_FOLDER_FILES = 13

export interface Move {
  folder: string
  from: string
  to: string
}

/** Every row of the table as a move from its path today to its stage folder. */
export function moves(): Move[] {
  return Object.entries(FOLDERS).flatMap(([folder, files]) =>
    files.map((f) => {
      const from = f.includes('/') ? f : `${QUERY}/${f}`
      return { folder, from, to: `${QUERY}/${folder}/${basename(f)}` }
    }),
  )
}

/** The .ts files directly in src/query/ that neither a folder nor STAY places. */
export function unplaced(root: string, table = moves()): string[] {
  const placed = new Set([...table.flatMap((m) => [m.from, m.to]), ...STAY.map((f) => `${QUERY}/${f}`)])
  return readdirSync(join(root, QUERY))
    .filter((f) => f.endsWith('.ts') && statSync(join(root, QUERY, f)).isFile())
    .map((f) => `${QUERY}/${f}`)
    .filter((p) => !placed.has(p))
}

type State = 'todo' | 'done' | 'absent'

/** Whether a row still has to move, has moved, or names a file this tree does not hold; throws when the tree has both paths. */
export function stateOf(root: string, m: Move): State {
  const atFrom = existsSync(join(root, m.from))
  const atTo = existsSync(join(root, m.to))
  if (atFrom && atTo) throw new Error(`${m.from} and ${m.to} both exist: merge them by hand, then run again`)
  return atFrom ? 'todo' : atTo ? 'done' : 'absent'
}

const SPECIFIER_EXT = /\.(ts|tsx|js|mjs)$/

/** The old path a relative specifier written in `fileDir` resolves to, when it names a moved file. */
function movedTarget(fileDir: string, spec: string, byFrom: Map<string, Move>): Move | undefined {
  const p = posix.normalize(posix.join(fileDir, spec))
  const candidates = SPECIFIER_EXT.test(p) ? [p.replace(SPECIFIER_EXT, '.ts'), p] : [`${p}.ts`, `${p}/index.ts`]
  for (const c of candidates) {
    const m = byFrom.get(c)
    if (m) return m
  }
  return undefined
}

/** `spec` rewritten to reach `target` from `fromDir`, in the same style (extension or none). */
function specifierTo(fromDir: string, target: string, spec: string): string {
  const ext = SPECIFIER_EXT.exec(spec)?.[0]
  let r = posix.relative(fromDir, target)
  r = ext ? r.replace(SPECIFIER_EXT, ext) : r.replace(SPECIFIER_EXT, '')
  return r.startsWith('.') ? r : `./${r}`
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
/** A quoted relative path: an import/export-from/require/import() specifier or a path string. */
const RELATIVE_LITERAL = /(['"`])(\.\.?\/[^'"`\s$]*)\1/g

/**
 * The text of one file with every reference to a moved file repointed. `fileNow` is where the
 * file is after the moves (its relative specifiers are recomputed from there); `fileWas` where
 * its specifiers were written from.
 */
export function rewriteText(text: string, fileWas: string, fileNow: string, byFrom: Map<string, Move>, movedFiles: Map<string, string>): string {
  const wasDir = posix.dirname(fileWas)
  const nowDir = posix.dirname(fileNow)
  let out = text.replace(RELATIVE_LITERAL, (whole, q: string, spec: string) => {
    const moved = movedTarget(wasDir, spec, byFrom)
    if (moved) return `${q}${specifierTo(nowDir, moved.to, spec)}${q}`
    if (wasDir === nowDir) return whole
    // The file itself moved: a specifier of a file that stayed is recomputed from the new folder.
    const p = posix.normalize(posix.join(wasDir, spec))
    const target = movedFiles.get(p) ?? p
    const exists = [target, `${target}.ts`, `${target}/index.ts`, target.replace(SPECIFIER_EXT, '.ts')].some((c) => existsSync(join(ROOT_FOR_REWRITE.root, c)))
    if (!exists) return whole
    return `${q}${specifierTo(nowDir, target, spec)}${q}`
  })
  // Mentions of a moved file by its path from the repository root, in comments and Markdown.
  for (const m of byFrom.values()) {
    // Not inside another path (`fixtures/x/src/query/...`), but `../src/query/...` in a Markdown link is one.
    const re = new RegExp(`(?<![\\w.-])(?<![\\w-]/)${escape(m.from)}(?![\\w-])`, 'g')
    out = out.replace(re, m.to)
  }
  return out
}

/** The root the existence checks of rewriteText look in (set by main; tests may point it elsewhere). */
export const ROOT_FOR_REWRITE = { root: ROOT }

function* textFiles(root: string): Generator<string> {
  for (const f of SCANNED_ROOT_FILES) if (existsSync(join(root, f))) yield f
  const walk = function* (dir: string): Generator<string> {
    for (const e of readdirSync(join(root, dir), { withFileTypes: true })) {
      if (SKIPPED_DIRS.has(e.name)) continue
      const p = `${dir}/${e.name}`
      if (e.isDirectory()) yield* walk(p)
      else if (e.isFile() && TEXT.test(e.name)) yield p
    }
  }
  for (const d of SCANNED) if (existsSync(join(root, d))) yield* walk(d)
}

function git(root: string, args: string[]): void {
  const r = spawnSync('git', args, { cwd: root, encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr.trim()}`)
}

/** Repoints every reference to the moved files; `justMoved` maps the new path of files moved in this run to their old one. */
function rewriteAll(root: string, done: Move[], justMoved: Map<string, string>): string[] {
  const byFrom = new Map(done.map((m) => [m.from, m]))
  const movedFiles = new Map(done.map((m) => [m.from, m.to]))
  const changed: string[] = []
  for (const file of textFiles(root)) {
    if (SELF.has(file)) continue
    const full = join(root, file)
    const text = readFileSync(full, 'utf8')
    // A file moved in an earlier run already has its specifiers written from its new folder.
    const was = justMoved.get(file) ?? file
    const next = rewriteText(text, was, file, byFrom, movedFiles)
    if (next !== text) {
      writeFileSync(full, next)
      changed.push(file)
    }
  }
  return changed
}

function folderSizes(root: string): string[] {
  const over: string[] = []
  for (const folder of Object.keys(FOLDERS)) {
    const dir = join(root, QUERY, folder)
    if (!existsSync(dir)) continue
    const n = readdirSync(dir).filter((f) => f.endsWith('.ts')).length
    if (n > MAX_FOLDER_FILES) over.push(`${QUERY}/${folder}/ holds ${n} files (more than ${MAX_FOLDER_FILES}): split it by stage`)
  }
  return over
}

export function run(root: string, argv: string[]): number {
  ROOT_FOR_REWRITE.root = root
  const mode = argv[0]
  const usage = `usage: npx bun scripts/move-query-folders.ts --check | --folder NAME | --all | --rewrite\nfolders, in order: ${Object.keys(FOLDERS).join(', ')}`
  if (!mode || !['--check', '--folder', '--all', '--rewrite'].includes(mode)) {
    console.error(usage)
    return 2
  }
  const table = moves()
  const left = unplaced(root, table)
  if (left.length) {
    console.error(`src/query/ has files the table does not place; add each to FOLDERS or STAY in scripts/move-query-folders.ts:\n  ${left.join('\n  ')}`)
    return 1
  }
  const states = new Map(table.map((m) => [m, stateOf(root, m)]))
  if (mode === '--check') {
    for (const folder of Object.keys(FOLDERS)) {
      const rows = table.filter((m) => m.folder === folder && states.get(m) !== 'absent')
      const todo = rows.filter((m) => states.get(m) === 'todo')
      const absent = table.filter((m) => m.folder === folder && states.get(m) === 'absent').map((m) => basename(m.from))
      const note = absent.length ? `; not in this tree: ${absent.join(', ')}` : ''
      console.log(`${folder}: ${todo.length ? `${todo.length} of ${rows.length} to move (${todo.map((m) => basename(m.from)).join(', ')})` : `moved (${rows.length} files)`}${note}`)
    }
    return 0
  }
  let folders: string[] = []
  if (mode === '--folder') {
    const name = argv[1]
    if (!name || !(name in FOLDERS)) {
      console.error(`unknown folder "${name ?? ''}"\n${usage}`)
      return 2
    }
    folders = [name]
  } else if (mode === '--all') folders = Object.keys(FOLDERS)
  const justMoved = new Map<string, string>()
  for (const m of table) {
    if (!folders.includes(m.folder) || states.get(m) !== 'todo') continue
    mkdirSync(dirname(join(root, m.to)), { recursive: true })
    git(root, ['mv', m.from, m.to])
    states.set(m, 'done')
    justMoved.set(m.to, m.from)
    console.log(`moved ${m.from} -> ${m.to}`)
  }
  const done = table.filter((m) => states.get(m) === 'done')
  const changed = rewriteAll(root, done, justMoved)
  for (const f of changed) console.log(`repointed ${f}`)
  if (changed.length) git(root, ['add', '--', ...changed])
  const over = folderSizes(root)
  for (const line of over) console.error(line)
  if (!justMoved.size && !changed.length) console.log('nothing to do')
  return over.length ? 1 : 0
}

if (import.meta.main) process.exit(run(ROOT, process.argv.slice(2)))
