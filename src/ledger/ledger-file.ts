import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { tableFromIPC } from 'apache-arrow'
import { columnsFromTable } from '../store/arrow-columns'
import type { ColumnLayout } from '../store/column-layout'
import { IndexLoadError } from '../store/index-load-error'

/**
 * The arrival ledger: photo id -> the publish time of the first index that held it, one row per
 * photo ever published from this INDEX_DIR, in the order they arrived. A row's number is the
 * photo's ledger position: the stream's event id (positions only grow; a publish appends).
 *
 * Two copies, both Arrow IPC with LEDGER_LAYOUT:
 *  - `<INDEX_DIR>/ledger.arrow`: the running ledger, read and extended by every build;
 *  - `<INDEX_DIR>/<version>/ledger.arrow`: the ledger as it stood when that version was published,
 *    which the server reads. It is not part of the content version (a rebuild of the same pages
 *    is the same version), so it travels with the version folder: several machines serve one
 *    version by copying the folder (docs/scale-out.md), never by rebuilding it on each.
 * Rows of one publish share its time and are in ascending id order, so the ledger is sorted by
 * (added_at, position) and a publish's rows are one stretch at its end.
 */
export const LEDGER_FILE = 'ledger.arrow'

export const LEDGER_LAYOUT: ColumnLayout = [
  ['id', 'int32'],
  ['added_at', 'f64'],
]

export interface Ledger {
  length: number
  /** Photo id at each position. */
  id: Int32Array
  /** Publish time (ms since the Unix epoch) at each position, never decreasing. */
  added_at: Float64Array
}

export const EMPTY_LEDGER: Ledger = { length: 0, id: new Int32Array(0), added_at: new Float64Array(0) }

/** The ledger file in `dir`, or undefined when there is none; a damaged one is an IndexLoadError. */
export function readLedger(dir: string): Ledger | undefined {
  const path = join(dir, LEDGER_FILE)
  if (!existsSync(path)) return undefined
  let cols: Record<string, unknown>
  try {
    const table = tableFromIPC(readFileSync(path))
    cols = columnsFromTable(path, table, LEDGER_LAYOUT, table.numRows)
  } catch (e) {
    if (e instanceof IndexLoadError) throw e
    throw new IndexLoadError(path, `is not a readable Arrow IPC file (${(e as Error).message})`)
  }
  const ledger = cols as unknown as Ledger
  for (let i = 0; i < ledger.length; i++) {
    const t = ledger.added_at[i]!
    if (!Number.isFinite(t) || (i > 0 && t < ledger.added_at[i - 1]!)) throw new IndexLoadError(path, `row ${i}: added_at ${t} is not a time at or after the row before`)
  }
  return ledger
}
