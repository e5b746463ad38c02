import type { Store } from '../../store/store'
import { parseStatsQuery } from './stats-params'
import { renderStats } from './stats-render'
import { tallyStats } from './stats-tally'

/**
 * `GET /api/v2/photos/stats` (interface "Photo statistics"; decisions.md, Other endpoints):
 * parameters (stats-params.ts), then the counts for the grouping (stats-tally.ts: every photo
 * filter applies, by the same plan and scan as the list, or from the stats cube), then the
 * envelope (stats-render.ts). `rowPathOnly` forces the row scan (tests compare it with the cube).
 */
export function photoStats(store: Store, params: URLSearchParams, base: string, rowPathOnly = false): string {
  const { groupBy, filters } = parseStatsQuery(params, store)
  return renderStats(store, tallyStats(store, filters, groupBy, rowPathOnly), groupBy, params, base)
}
