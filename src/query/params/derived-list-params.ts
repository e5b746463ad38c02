import { Type, type TObject } from '@sinclair/typebox'
import type { ParamError } from '../../http/problems'
import { validationError } from '../../http/problems'
import { ROVER_SLUGS, roverCode } from '../../catalog/rovers'
import {
  checkRange,
  INT32_MAX,
  intParam,
  PAGE_PARAM,
  PER_PAGE_PARAM,
  readPaging,
  readParam,
  ROVERS_PARAM,
  SOL_MAX_PARAM,
  SOL_MIN_PARAM,
  type Paging,
  type ParamSpec,
} from './param-parsers'

/**
 * The parameters of GET /locations and GET /panoramas (interface "Locations", "Panoramas":
 * rovers, sol_min, sol_max, min_photos, page, per_page). Rules (decisions.md):
 *  - `rovers`: unknown slugs give 400 naming the valid ones, as on photos;
 *  - sol bounds inclusive, `sol_min` > `sol_max` gives 400;
 *  - `min_photos`: an integer 0..2^31-1 (0 = no bound), anything else 400;
 *  - `page` >= 1, `per_page` >= 1 (above 100 served as 100);
 *  - every bad parameter is named in one 400 (throws validationError).
 */
export interface DerivedListParams {
  /** Selected rover codes, ascending (all four when `rovers` is absent). */
  roverCodes: number[]
  solMin?: number
  solMax?: number
  minPhotos?: number
  paging: Paging
}

export function minPhotosParam(description: string): ParamSpec<number> {
  return intParam('min_photos', 0, INT32_MAX, description)
}

export function readDerivedListParams(params: URLSearchParams, minPhotos: ParamSpec<number>): DerivedListParams {
  const errors: ParamError[] = []
  const rovers = readParam(params, ROVERS_PARAM, errors)
  const solMin = readParam(params, SOL_MIN_PARAM, errors)
  const solMax = readParam(params, SOL_MAX_PARAM, errors)
  const min = readParam(params, minPhotos, errors)
  const paging = readPaging(params, errors)
  checkRange('sol_min', solMin, solMax, errors)
  if (errors.length) throw validationError(errors)
  const roverCodes = rovers ? rovers.map(roverCode).sort((a, b) => a - b) : ROVER_SLUGS.map((_, i) => i)
  return { roverCodes, solMin, solMax, minPhotos: min || undefined, paging }
}

/** The query schema of these lists for the OpenAPI document (the same specs that parse requests). */
export function derivedListQuery(minPhotos: ParamSpec<number>): TObject {
  return Type.Object({
    rovers: Type.Optional(ROVERS_PARAM.schema),
    sol_min: Type.Optional(SOL_MIN_PARAM.schema),
    sol_max: Type.Optional(SOL_MAX_PARAM.schema),
    min_photos: Type.Optional(minPhotos.schema),
    page: Type.Optional(PAGE_PARAM.schema),
    per_page: Type.Optional(PER_PAGE_PARAM.schema),
  })
}
