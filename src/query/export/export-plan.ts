import { validationError, type ParamError } from '../../http/problems'
import type { Store } from '../../store/store'
import { Order } from '../order/order'
import { parsePhotoQuery } from '../params/photo-params'
import type { OutputSpec } from '../params/photo-fields'
import { scanMatches } from '../page/run-query'
import { PAGING_NAMES, readExportParams, type ExportFormat } from './export-params'
import { distancePage } from '../page/distance-page'
import { BitRows, ListRows, PermRows, RowBits, sortedRuns, type RowCursor } from './row-order'

/** One export, decided before a byte is sent: what to write, which rows in which order, what it costs. */
export interface ExportPlan {
  store: Store
  format: ExportFormat
  output: OutputSpec
  /** The rows to write, in the requested order (at most maxRows of them), produced as the stream is read. */
  rows: RowCursor
  /** Rows the export writes (the matches, cut by max_rows or the server cap). */
  count: number
  /** Photos matching the filters. */
  total: number
  /** Calls this export counts as: one per started 1,000 rows, at least one (decisions.md, Export charging). */
  cost: number
}

export const ROWS_PER_CALL = 1000

/** Gives the event loop a turn (between sorted runs of a large export). */
const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve))

/**
 * Parses an export request with the photo list's own parser (parsePhotoQuery: same declarations,
 * same validation, one 400 naming every bad parameter, export's own `format`/`max_rows` included)
 * and finds every match on the pinned snapshot with the list's own planner (scanMatches: the
 * same index sources and filters), into a bitset of rows. The order then costs nothing up front
 * when the store already holds it (row order, or one field's permutation); any other order is
 * sorted a run at a time with the event loop free between runs (row-order.ts); a distance order
 * is the list's distance page over every match. The stream reads the columns from the snapshot
 * as it goes.
 */
export async function planExport(store: Store, params: URLSearchParams, accept: string | null, serverMaxRows: number): Promise<ExportPlan> {
  const errors: ParamError[] = []
  const { format, maxRows } = readExportParams(params, accept, serverMaxRows, errors)
  const photoParams = new URLSearchParams(params)
  for (const name of PAGING_NAMES) photoParams.delete(name)
  const q = parsePhotoQuery(photoParams, store, errors)
  if (errors.length) throw validationError(errors) // unreachable: parsePhotoQuery throws with them
  if (q.byDistance) {
    // Nearest first, then id: the list's own distance order over every match, which the circle
    // bounds to the photos within 5 km of one place.
    const near = distancePage(store, { ...q.filters, near: q.filters.near! }, { offset: 0, limit: Math.max(0, maxRows) })
    const count = near.rows.length
    return { store, format, output: q.output, rows: new ListRows(near.rows), count, total: near.total, cost: exportCost(count) }
  }
  const order = new Order(q.sort, store.photos, store.paths)
  const bits = new RowBits(store.photos.length)
  let total = 0
  scanMatches(store, q.filters, {
    rows(sel, len) {
      bits.add(sel, len)
      total += len
    },
    range(from, to) {
      bits.addRange(from, to)
      total += to - from
    },
  })
  const count = Math.min(total, Math.max(0, maxRows))
  const rows: RowCursor = order.isDefault ? new BitRows(bits, count)
    : order.single ? new PermRows(store, order, bits, count)
    : count === 0 ? new BitRows(bits, 0)
    : await sortedRuns(order, bits, total, count, yieldToLoop)
  return { store, format, output: q.output, rows, count, total, cost: exportCost(count) }
}

/** One call per started 1,000 rows, and at least the one the request itself is. */
export function exportCost(rows: number): number {
  return Math.max(1, Math.ceil(rows / ROWS_PER_CALL))
}
