import type { Store } from '../../src/store/store'

/**
 * The pure render functions the bench times (no response cache: every call scans and
 * serialises). Imported lazily so the bench reports a missing module as a skipped shape
 * instead of failing to start.
 */
export interface EngineApi {
  loadStore(dir: string): Promise<Store>
  listPhotos?(store: Store, params: URLSearchParams, base: string): string
  getPhoto?(store: Store, id: string, params: URLSearchParams, base: string): string
  photoStats?(store: Store, params: URLSearchParams, base: string): string
  batchPhotos?(store: Store, body: unknown, params: URLSearchParams, base: string): string
  listLocations?(store: Store, params: URLSearchParams, base: string): string
  listPanoramas?(store: Store, params: URLSearchParams, base: string): string
  /** Modules that could not be imported, with the reason. */
  missing: string[]
}

/** The origin the render functions build absolute links from. */
export const BASE = 'http://127.0.0.1:3000'

async function tryImport(path: string, missing: string[]): Promise<Record<string, unknown>> {
  try {
    return (await import(path)) as Record<string, unknown>
  } catch (e) {
    missing.push(`${path.replace(/^.*\/src\//, 'src/')}: ${(e as Error).message.split('\n')[0]}`)
    return {}
  }
}

type Fn = (...args: never[]) => unknown
const fn = <T>(m: Record<string, unknown>, name: string): T | undefined =>
  typeof m[name] === 'function' ? (m[name] as T) : undefined

export async function loadEngine(): Promise<EngineApi> {
  const missing: string[] = []
  const store = await tryImport('../../src/store/load-store.ts', missing)
  const query = await tryImport('../../src/query/index.ts', missing)
  const locations = await tryImport('../../src/query/locations-list.ts', missing)
  const panoramas = await tryImport('../../src/query/panoramas-list.ts', missing)
  const load = fn<(dir: string) => Store | Promise<Store>>(store, 'loadStore')
  return {
    loadStore: async (dir) => {
      if (!load) throw new Error(`loadStore unavailable (${missing.join('; ') || 'no export'})`)
      return await load(dir)
    },
    listPhotos: fn<Fn>(query, 'listPhotos') as EngineApi['listPhotos'],
    getPhoto: fn<Fn>(query, 'getPhoto') as EngineApi['getPhoto'],
    photoStats: fn<Fn>(query, 'photoStats') as EngineApi['photoStats'],
    batchPhotos: fn<Fn>(query, 'batchPhotos') as EngineApi['batchPhotos'],
    listLocations: fn<Fn>(locations, 'listLocations') as EngineApi['listLocations'],
    listPanoramas: fn<Fn>(panoramas, 'listPanoramas') as EngineApi['listPanoramas'],
    missing,
  }
}
