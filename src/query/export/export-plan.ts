import { validationError, type ParamError } from '../../http/problems'
import type { Store } from '../../store/store'
import { Order } from '../order'
import { parsePhotoQuery } from '../photo-params'
import type { OutputSpec } from '../photo-fields'
import { runQuery } from '../run-query'
import { PAGING_NAMES, readExportParams, type ExportFormat } from './export-params'

/** One export, decided before a byte is sent: what to write, which rows in which order, what it costs. */
export interface ExportPlan {
  store: Store
  format: ExportFormat
  output: OutputSpec
  /** The rows to write, in the requested order (at most maxRows of them). */
  rows: Int32Array
  /** Photos matching the filters (rows.length is less when max_rows or the server cap cut it). */
  total: number
  /** Calls this export counts as: one per started 1,000 rows, at least one (decisions.md, Export charging). */
  cost: number
}

export const ROWS_PER_CALL = 1000

/**
 * Parses an export request with the photo list's own parser (parsePhotoQuery: same declarations,
 * same validation, one 400 naming every bad parameter, export's own `format`/`max_rows` included)
 * and runs the query once on the pinned snapshot for every match in order, up to the row cap. The
 * row list (4 bytes a row) is all the export keeps; the columns are read from the snapshot as the
 * stream goes.
 */
export function planExport(store: Store, params: URLSearchParams, accept: string | null, serverMaxRows: number): ExportPlan {
  const errors: ParamError[] = []
  const { format, maxRows } = readExportParams(params, accept, serverMaxRows, errors)
  const photoParams = new URLSearchParams(params)
  for (const name of PAGING_NAMES) photoParams.delete(name)
  const q = parsePhotoQuery(photoParams, store, errors)
  if (errors.length) throw validationError(errors) // unreachable: parsePhotoQuery throws with them
  const order = new Order(q.sort, store.photos, store.paths)
  const outcome = maxRows > 0 ? runQuery(store, q.filters, order, { offset: 0, limit: maxRows }) : { total: runQuery(store, q.filters, order, { offset: 0, limit: 0 }).total, rows: new Int32Array(0) }
  return { store, format, output: q.output, rows: outcome.rows, total: outcome.total, cost: exportCost(outcome.rows.length) }
}

/** One call per started 1,000 rows, and at least the one the request itself is. */
export function exportCost(rows: number): number {
  return Math.max(1, Math.ceil(rows / ROWS_PER_CALL))
}
