/**
 * How much one sol and one run of the fetcher may take. A feed page is bounded by the polite
 * client (8 MiB); these bound what pages add up to, so a feed that answers without end (a sol of
 * hundreds of padded pages, a run over thousands of sols) costs a known amount of disk and time:
 * - a sol over `solBytes` or `solRecords` is refused whole and nothing of it is saved (its pages
 *   are staged on disk as they arrive and deleted);
 * - a run stops after the sol that takes it past `runBytes`; the same command again goes on
 *   where it stopped (`--all` goes on by itself, one chunk of sols under the cap after another).
 */
export interface FetchCaps {
  solBytes: number
  solRecords: number
  runBytes: number
}

const MiB = 1024 * 1024
const GiB = 1024 * MiB

/**
 * A Perseverance sol averages ~1,300 images (~3 MB of pages); the busiest hold a few thousand:
 * 32 MiB and 20,000 records are several times that. 4 GiB a run is the pages of ~1,000 busy sols.
 */
export const DEFAULT_CAPS: FetchCaps = { solBytes: 32 * MiB, solRecords: 20_000, runBytes: 4 * GiB }

/** `33554432`, `32MiB`, `32M`, `4GiB`, `4G`, `512KiB`: a byte count, or undefined when `raw` is none of those. */
export function parseBytes(raw: string): number | undefined {
  const m = /^(\d{1,15})\s*(?:(K|M|G|T)(?:i?B)?)?$/i.exec(raw.trim())
  if (!m) return undefined
  const unit = { K: 1024, M: MiB, G: GiB, T: 1024 * GiB }[(m[2] ?? '').toUpperCase() as 'K'] ?? 1
  const n = Number(m[1]) * unit
  return Number.isSafeInteger(n) ? n : undefined
}

/** A byte count the way the caps are written: `32 MiB`, `4 GiB`, `2.2 MiB`, `1,000 bytes`. */
export function formatBytes(n: number): string {
  for (const [unit, size] of [['GiB', GiB], ['MiB', MiB], ['KiB', 1024]] as const) {
    if (n >= size) return `${Number.isInteger(n / size) ? n / size : (n / size).toFixed(1)} ${unit}`
  }
  return `${n.toLocaleString('en-US')} bytes`
}

/** The caps in the words the summary and the refusals use. */
export function describeCaps(c: FetchCaps): string {
  return `${formatBytes(c.solBytes)} and ${c.solRecords.toLocaleString('en-US')} records a sol, ${formatBytes(c.runBytes)} a run`
}
