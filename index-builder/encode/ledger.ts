import { existsSync, renameSync } from 'node:fs'
import { join } from 'node:path'
import { EMPTY_LEDGER, LEDGER_FILE, LEDGER_LAYOUT, readLedger, type Ledger } from '../../src/ledger/ledger-file'
import { tableFromColumns } from './arrow-table'
import { CURRENT } from './publish'
import { fsyncDir, writeArrowFile } from './write-arrow-file'

/**
 * The builder's side of the arrival ledger (src/ledger/ledger-file.ts): which photos of a build
 * are new to `out`, the ledger with them appended at the publish time, and its two copies.
 */

/**
 * The ledger the last publish in `out` left: the running one beside the versions, or the served
 * version's copy when that is longer (a folder copied in from another machine, or a build killed
 * between publishing and writing the running ledger). Both only ever grow by appending, so the
 * longer one holds the other.
 */
export function previousLedger(out: string): Ledger {
  const running = readLedger(out)
  const served = readLedger(join(out, CURRENT))
  if (!running) return served ?? EMPTY_LEDGER
  return served && served.length > running.length ? served : running
}

/** Ids of `ids` the ledger does not hold, ascending (the order they take in the ledger). */
export function newIds(ledger: Ledger, ids: Int32Array): Int32Array {
  // Both sorted (native sorts of typed copies), then walked together: a Set of a million-row
  // ledger's ids cost ~0.5 s of an update's merge, the sorts a tenth of it.
  const known = ledger.id.slice(0, ledger.length).sort()
  const all = ids.slice().sort()
  const fresh: number[] = []
  let j = 0
  for (let i = 0; i < all.length; i++) {
    const v = all[i]!
    while (j < known.length && known[j]! < v) j++
    if (j >= known.length || known[j] !== v) fresh.push(v)
  }
  return Int32Array.from(fresh)
}

/** `ledger` with `fresh` appended at `publishMs` (never before its last time, whatever the clock says). */
export function appendToLedger(ledger: Ledger, fresh: Int32Array, publishMs: number): Ledger {
  const n = ledger.length + fresh.length
  const id = new Int32Array(n)
  const added = new Float64Array(n)
  id.set(ledger.id.subarray(0, ledger.length))
  added.set(ledger.added_at.subarray(0, ledger.length))
  const at = Math.max(Math.trunc(publishMs), ledger.length ? ledger.added_at[ledger.length - 1]! : 0)
  id.set(fresh, ledger.length)
  added.fill(at, ledger.length)
  return { length: n, id, added_at: added }
}

/**
 * Writes the ledger as `dir/ledger.arrow`, atomically (a temporary file renamed over it). The
 * temporary file is named like a staging folder, so a build killed while writing it leaves
 * nothing the next build does not remove (publish.ts removes abandoned staging entries).
 */
export async function writeLedger(dir: string, ledger: Ledger): Promise<void> {
  const tmp = join(dir, `.staging-${process.pid}-${Date.now().toString(36)}-${LEDGER_FILE}`)
  await writeArrowFile(tmp, tableFromColumns(LEDGER_LAYOUT, ledger as never, ledger.length))
  renameSync(tmp, join(dir, LEDGER_FILE))
  fsyncDir(dir)
}

/** A published version folder without a ledger copy (published before ledgers, or reused) gets this one. */
export async function giveLedgerTo(versionDir: string, ledger: Ledger): Promise<void> {
  if (!existsSync(join(versionDir, LEDGER_FILE))) await writeLedger(versionDir, ledger)
}
