import { describe, expect, test } from 'bun:test'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative, resolve } from 'node:path'
import { ON_DEMAND_SCENARIOS, SCENARIOS } from '../bench/lib/bench-options'
import { ENGINE_FACE, ENGINE_FUNCTIONS, loadEngine, STORE_LOADER } from '../bench/lib/engine-api'
import { SCENARIO_RUNNERS } from '../bench/lib/scenario-runners'

/**
 * The bench finds everything it loads by path: each scenario's module, the engine's face and the
 * store loader it imports by path from a tree's root, and every script it spawns. A file that moved
 * or is missing is an error here (and when the bench runs), never a shape or scenario that is
 * silently reported as skipped.
 */
const ROOT = resolve(import.meta.dir, '..')

function* benchSources(dir: string): Generator<string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name === 'results' || e.name === 'node_modules') continue
    const p = join(dir, e.name)
    if (e.isDirectory()) yield* benchSources(p)
    else if (e.name.endsWith('.ts')) yield p
  }
}

/** Every path a bench file names in code: `join(import.meta.dir, ...)` from its folder, './x' from its folder, 'a/b.ts' from the root. */
function pathsNamed(file: string): Array<{ file: string; path: string }> {
  let text = readFileSync(file, 'utf8')
  const out: Array<{ file: string; path: string }> = []
  const at = relative(ROOT, file)
  text = text.replace(/join\(import\.meta\.dir((?:,\s*'[^']*')+)\)/g, (_, args: string) => {
    const parts = [...args.matchAll(/'([^']*)'/g)].map((m) => m[1]!)
    out.push({ file: at, path: relative(ROOT, join(dirname(file), ...parts)) })
    return ''
  })
  for (const m of text.matchAll(/(['"`])([\w@.\/-]+\.(?:ts|c))\1/g)) {
    const p = m[2]!
    out.push({ file: at, path: p.startsWith('.') ? relative(ROOT, join(dirname(file), p)) : p })
  }
  return out
}

describe('the bench', () => {
  test('has a module exporting its function for every scenario it can run', async () => {
    const names = [...SCENARIOS, ...ON_DEMAND_SCENARIOS]
    expect(Object.keys(SCENARIO_RUNNERS).sort()).toEqual([...names].sort())
    for (const name of names) expect({ name, runner: typeof (await SCENARIO_RUNNERS[name]()) }).toEqual({ name, runner: 'function' })
  }, 60_000)

  test('names only files that exist in every path it spawns or loads (scripts, probes, the engine face, the store loader)', () => {
    const named = [...benchSources(join(ROOT, 'bench'))].flatMap(pathsNamed)
    expect(named.map((n) => n.path)).toContain(ENGINE_FACE)
    expect(named.map((n) => n.path)).toContain('app/server.ts')
    expect(named.filter((n) => !existsSync(join(ROOT, n.path))).map((n) => `${n.file}: ${n.path}`)).toEqual([])
  })

  test('loads every function it times from the engine face of this tree', async () => {
    const engine = await loadEngine()
    expect(engine.missing).toEqual([])
    for (const name of ENGINE_FUNCTIONS) expect({ name, type: typeof engine[name] }).toEqual({ name, type: 'function' })
  })

  test('stops with the path when a tree lacks the engine face or a function of it, instead of skipping its shapes', async () => {
    const tree = mkdtempSync(join(tmpdir(), 'mars-bench-paths-'))
    try {
      mkdirSync(join(tree, dirname(STORE_LOADER)), { recursive: true })
      writeFileSync(join(tree, STORE_LOADER), 'export const loadStore = async () => ({})\n')
      await expect(loadEngine(tree)).rejects.toThrow(`could not load ${ENGINE_FACE}`)
      mkdirSync(join(tree, dirname(ENGINE_FACE)), { recursive: true })
      writeFileSync(join(tree, ENGINE_FACE), 'export const listPhotos = () => "{}"\n')
      await expect(loadEngine(tree)).rejects.toThrow(`${ENGINE_FACE} of ${tree} exports no getPhoto, photoStats, batchPhotos, listLocations, listPanoramas, relatedPhotos`)
      // A tree compared against (--against) may lack functions: they are listed, not loaded.
      expect((await loadEngine(tree, { partial: true })).missing).toEqual(['getPhoto', 'photoStats', 'batchPhotos', 'listLocations', 'listPanoramas', 'relatedPhotos'])
    } finally {
      rmSync(tree, { recursive: true, force: true })
    }
  })
})
