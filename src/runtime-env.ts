/**
 * Settings the runtime reads from the environment before any of our code runs, so whoever starts
 * the server (the npm scripts, the worker supervisor, the bench) or the update's merge process
 * (index-builder/merge/merge-cli.ts) must put them in place at spawn.
 *
 * MIMALLOC_PURGE_DELAY=-1: Bun allocates strings and buffers with mimalloc, which hands pages
 * that fell free back to the kernel 100 ms later. Every answer is a fresh string of its size (a
 * 100-photo page is 130 KB) and the garbage collector frees old answers in batches, so with
 * purging on most answers land in pages the kernel must fault in and zero again: 32 faults,
 * ~45 µs, for 130 KB, a third of that page's whole cost. With purging off the freed pages are
 * reused as they are; the process keeps its high-water mark instead of shrinking after a burst.
 * RSS after loading the 1.9M-photo index measured the same either way (566 and 572 MiB).
 *
 * A value the operator set wins: these are defaults, not overrides.
 */
export const RUNTIME_ENV: Readonly<Record<string, string>> = { MIMALLOC_PURGE_DELAY: '-1' }

/**
 * What a full build from the page store (`npm run update` when it cannot merge, or with
 * --rebuild) is spawned with: the server's settings, purging off like the update's merge
 * process. Reading and normalising a mirror allocate and free per page and per record (page
 * texts, parsed records, raw JSON texts, the records themselves as the photo table consumes
 * them); with purging on, each freed page went back to the kernel and was faulted in and
 * zeroed again (~12-20 ms a MB on the bench machine). Measured on the 1.5-million-record stand-in
 * mirror: 206 → 151 CPU seconds (76 → 41 of them system), 557 → 386 s, peak RSS 3,481 → 4,663
 * MiB (the build keeps its high-water mark). The synthetic build is not given it (below).
 */
export function fullBuildEnv<T extends Record<string, string | undefined>>(env: T): T & Record<string, string | undefined> {
  return withRuntimeEnv(env)
}

/**
 * What a process that is not the server (the synthetic index builder) is spawned with on top of an
 * environment that may carry the server's settings: each of them removed (undefined), so it runs
 * with the allocator's defaults. The builder frees large column buffers as it goes; with purging
 * off it keeps them all, and its peak RSS at 19M photos rose from 7.5 to 12.3 GB.
 */
export const NOT_SERVER_ENV: Readonly<Record<string, undefined>> = Object.fromEntries(Object.keys(RUNTIME_ENV).map((k) => [k, undefined]))

/** `env` with every runtime setting it lacks added. */
export function withRuntimeEnv<T extends Record<string, string | undefined>>(env: T): T & Record<string, string | undefined> {
  const out: Record<string, string | undefined> = { ...env }
  for (const [name, value] of Object.entries(RUNTIME_ENV)) if (out[name] === undefined || out[name] === '') out[name] = value
  return out as T & Record<string, string | undefined>
}

/**
 * Whether this process runs with purging off (MIMALLOC_PURGE_DELAY negative): freed pages stay
 * in the process, so its RSS is its high-water mark and collecting early returns nothing to the
 * system (index-builder/encode/release-memory.ts releaseGarbage).
 */
export function purgingOff(env: Record<string, string | undefined> = process.env): boolean {
  const v = env.MIMALLOC_PURGE_DELAY
  return v !== undefined && v.trim() !== '' && Number(v) < 0
}

/** The runtime settings this process started with, as they were set (absent ones omitted): logged at start. */
export function runtimeSettings(env: Record<string, string | undefined> = process.env): Record<string, string> {
  const out: Record<string, string> = {}
  for (const name of Object.keys(RUNTIME_ENV)) if (env[name] !== undefined && env[name] !== '') out[name] = env[name]!
  return out
}
