import type { ParamError } from '../../http/problems'
import type { Store } from '../../store/store'
import type { PhotoFilters } from '../scan/filters'
import { choiceParam, readParam, type ParamSpec } from '../params/param-parsers'
import { parsePhotoQuery, PHOTO_PARAMS, querySchema } from '../params/photo-params'

/**
 * The parameters of `GET /api/v2/photos/stats` (interface "Photo statistics"): `group_by` and
 * every photo filter of the list (decisions.md, Other endpoints). One 400 names every bad
 * parameter, group_by first.
 */
export const STATS_PATH = '/api/v2/photos/stats'

export const GROUP_BY_VALUES = ['camera', 'rover', 'sol'] as const
export type GroupBy = (typeof GROUP_BY_VALUES)[number]
export const GROUP_BY: ParamSpec<GroupBy> = choiceParam('group_by', GROUP_BY_VALUES, 'Grouping of the statistics; default camera.')

// Statistics have no pages to walk: `cursor` is not one of their parameters (a 400 like any name a route does not take).
export const STATS_QUERY_SCHEMA = querySchema([GROUP_BY as ParamSpec<unknown>, ...PHOTO_PARAMS.filter((p) => p.name !== 'cursor')])

export interface StatsQuery {
  groupBy: GroupBy
  filters: PhotoFilters
}

/** Parses and validates the statistics parameters; throws one validationError naming each bad one. */
export function parseStatsQuery(params: URLSearchParams, store: Store): StatsQuery {
  const errors: ParamError[] = []
  const groupBy = readParam(params, GROUP_BY, errors) ?? 'camera'
  const q = parsePhotoQuery(params, store, errors)
  return { groupBy, filters: q.filters }
}
