import { join, resolve } from 'node:path'
import type { Store } from '../../src/store/store'

/**
 * The pure render functions the bench times (no response cache: every call scans and
 * serialises), loaded by path from a tree's root: this tree's engine, and with `--against REF`
 * another tree's beside it in the same process. A module that does not load, or a face that
 * lacks a function the bench calls, is an error that stops the scenario, never a silently
 * skipped shape (test/bench-paths.test.ts holds these paths to the tree).
 */
export interface EngineApi {
  loadStore(dir: string): Promise<Store>
  listPhotos?(store: Store, params: URLSearchParams, base: string): string
  getPhoto?(store: Store, id: string, params: URLSearchParams, base: string): string
  photoStats?(store: Store, params: URLSearchParams, base: string): string
  batchPhotos?(store: Store, body: unknown, params: URLSearchParams, base: string): string
  listLocations?(store: Store, params: URLSearchParams, base: string): string
  listPanoramas?(store: Store, params: URLSearchParams, base: string): string
  relatedPhotos?(store: Store, id: string, params: URLSearchParams, base: string): string
  /** Functions of ENGINE_FUNCTIONS the face does not export (only ever non-empty for a tree loaded with `partial`). */
  missing: string[]
}

/** The origin the render functions build absolute links from. */
export const BASE = 'http://127.0.0.1:3000'

/** This tree's root. */
export const TREE_ROOT = resolve(import.meta.dir, '..', '..')
/** The engine's public face, from a tree's root: every function the bench times is exported there. */
export const ENGINE_FACE = 'src/query/index.ts'
/** The column store's loader, from a tree's root. */
export const STORE_LOADER = 'src/store/load-store.ts'
export const ENGINE_FUNCTIONS = ['listPhotos', 'getPhoto', 'photoStats', 'batchPhotos', 'listLocations', 'listPanoramas', 'relatedPhotos'] as const

async function load(root: string, path: string): Promise<Record<string, unknown>> {
  try {
    return (await import(join(root, path))) as Record<string, unknown>
  } catch (e) {
    throw new Error(`the bench could not load ${path} of ${root}: ${(e as Error).message.split('\n')[0]}`)
  }
}

/**
 * The engine of the tree at `root`. With `partial` (an older tree compared against), functions
 * its face lacks are listed in `missing` instead of failing the load.
 */
export async function loadEngine(root = TREE_ROOT, { partial = false } = {}): Promise<EngineApi> {
  const store = await load(root, STORE_LOADER)
  const face = await load(root, ENGINE_FACE)
  const loadStore = store.loadStore
  if (typeof loadStore !== 'function') throw new Error(`${STORE_LOADER} of ${root} exports no loadStore`)
  const missing = ENGINE_FUNCTIONS.filter((name) => typeof face[name] !== 'function')
  if (missing.length && !partial) throw new Error(`${ENGINE_FACE} of ${root} exports no ${missing.join(', ')}`)
  const api: EngineApi = { loadStore: async (dir) => (await loadStore(dir)) as Store, missing }
  for (const name of ENGINE_FUNCTIONS) if (typeof face[name] === 'function') (api as unknown as Record<string, unknown>)[name] = face[name]
  return api
}
