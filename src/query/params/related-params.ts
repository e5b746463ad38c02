import { Type } from '@sinclair/typebox'
import type { ParamError } from '../../http/problems'
import type { Store } from '../../store/store'
import type { NearCircle } from '../scan/filters'
import { boolParam, echo, INT32_MAX, intParam, itemAlternation, numberParam, rawParam, readParam, splitList, type ParamSource, type ParamSpec } from './param-parsers'

/**
 * The parameters that relate photos to each other (docs/derived-fields.md, "Stereo pairs and
 * sequences", "Taken near here"): declared here once, listed with the other photo parameters
 * (photo-params.ts PHOTO_PARAMS), so the OpenAPI document, the docs page and the unknown-name
 * rule know them as they know every filter.
 */
export const STEREO_PARAM = boolParam('stereo', 'true: only photos that are one eye of a stereo pair (relationships.stereo names the other eye); false: only photos without a partner.')

const SEQUENCE_PATTERN = '^[A-Za-z]{1,16}-\\d{1,7}-[A-Za-z0-9_]{1,16}$'
const SEQUENCE_RE = new RegExp(SEQUENCE_PATTERN)

export const SEQUENCE_PARAM: ParamSpec<string> = {
  name: 'sequence',
  schema: Type.String({
    description: 'One observation sequence, as relationships.sequence.id names it: <rover>-<sol>-<SEQUENCE>, e.g. curiosity-3027-TRAV00928 (case-insensitive). Lists its photos in exposure order (date_taken_utc ascending) unless sort is given.',
    maxLength: 48,
    pattern: SEQUENCE_PATTERN,
  }),
  parse(raw, errors) {
    if (raw.length > 48 || !SEQUENCE_RE.test(raw)) {
      errors.push({ parameter: 'sequence', message: `must be a sequence id <rover>-<sol>-<SEQUENCE> such as curiosity-3027-TRAV00928, got "${echo(raw)}"` })
      return undefined
    }
    const [rover, sol, ...rest] = raw.split('-')
    return `${rover!.toLowerCase()}-${Number(sol)}-${rest.join('-').toUpperCase()}`
  },
}

const NEAR_PHOTO = intParam('near_photo', 0, INT32_MAX, 'Centre of a "taken near here" search: the position of this photo (the waypoint of its site and drive). Needs radius_m; not with lat/lon.')
const LAT = numberParam('lat', -90, 90, 'Centre latitude of a "taken near here" search, planetocentric degrees -90 to 90. Needs lon and radius_m.')
const LON = numberParam('lon', 0, 360, 'Centre longitude, degrees east 0 to 360. Needs lat and radius_m.')
const RADIUS_M = numberParam('radius_m', 1, 5000, 'Keeps photos taken within this many metres (great circle on the Mars sphere of radius 3,389.5 km) of the centre, across every sol; photos without a known position never match. 1 to 5000. The drive-based location_radius is another thing.')

/** `sort=distance` as the sort parameter's schema admits it: the one item, ascending (blanks and empty items around it, as splitList reads them). */
export const DISTANCE_SORT_PATTERN = `^[\\s,]*${itemAlternation(['distance'], true)}[\\s,]*$`

export const NEAR_PARAMS: ParamSpec<unknown>[] = [NEAR_PHOTO, LAT, LON, RADIUS_M] as ParamSpec<unknown>[]

/**
 * Every sol but one: the nearby photos of /related are those of other sols than the photo's own,
 * and the link to all of them is the list with this filter, so it returns exactly the set counted.
 */
export const EXCLUDE_SOL_PARAM = intParam('exclude_sol', 0, INT32_MAX, 'Leaves out the photos of this sol (of every rover), e.g. with near_photo the photos taken on the same sol as it (as /related counts its nearby photos).')

export interface NearRequest {
  circle?: NearCircle
  /** sort=distance, with a centre. */
  byDistance: boolean
  /** The sort parameter for the other sort fields (undefined when it named distance). */
  sortRest: string | undefined
}

/**
 * The circle of near_photo or lat/lon with radius_m, and whether sort is `distance`. Every
 * inconsistency is a 400 naming the parameter: a centre without radius_m, radius_m or
 * sort=distance without a centre, both kinds of centre, lat without lon, an unknown photo or
 * one whose position is not known.
 */
export function parseNear(params: ParamSource, store: Store, sortRaw: string | undefined, errors: ParamError[]): NearRequest {
  let byDistance = false
  let sortRest = sortRaw
  if (sortRaw !== undefined && sortRaw.length <= 1024) {
    const items = splitList(sortRaw)
    const named = items.filter((i) => i.replace(/^-\s*/, '').trim().toLowerCase() === 'distance')
    if (named.length > 0) {
      sortRest = undefined
      if (items.length === 1 && !items[0]!.startsWith('-')) byDistance = true
      else errors.push({ parameter: 'sort', message: 'distance sorts alone and ascending (nearest first): sort=distance' })
    }
  }
  const given = (name: string) => rawParam(params, name) !== undefined
  const photoId = readParam(params, NEAR_PHOTO, errors)
  const lat = readParam(params, LAT, errors)
  const lon = readParam(params, LON, errors)
  const radius = readParam(params, RADIUS_M, errors)
  const byPhoto = given('near_photo')
  const byPosition = given('lat') || given('lon')
  const centred = byPhoto || byPosition
  if (byPhoto && byPosition) errors.push({ parameter: 'near_photo', message: 'give either near_photo or lat and lon, not both' })
  if (given('lat') && !given('lon')) errors.push({ parameter: 'lon', message: 'is required with lat (degrees east, 0 to 360)' })
  if (given('lon') && !given('lat')) errors.push({ parameter: 'lat', message: 'is required with lon (planetocentric degrees, -90 to 90)' })
  if (centred && !given('radius_m')) errors.push({ parameter: 'radius_m', message: 'is required with near_photo or lat and lon (metres, 1 to 5000)' })
  if (!centred && given('radius_m')) errors.push({ parameter: 'radius_m', message: 'needs a centre: near_photo, or lat and lon' })
  if (!centred && sortRaw !== undefined && (byDistance || sortRest === undefined) && !errors.some((e) => e.parameter === 'sort')) {
    errors.push({ parameter: 'sort', message: 'distance needs a centre: near_photo, or lat and lon, with radius_m' })
  }
  let centre: { lat: number; lon: number } | undefined
  if (photoId !== undefined && !byPosition) {
    const row = store.paths.rowOfId(photoId)
    if (row < 0) errors.push({ parameter: 'near_photo', message: `no photo has id ${photoId}` })
    else if (Number.isNaN(store.photos.lat[row]!)) errors.push({ parameter: 'near_photo', message: `photo ${photoId} has no known position (its site and drive are not a waypoint of the traverse)` })
    else centre = { lat: store.photos.lat[row]!, lon: store.photos.lon[row]! }
  } else if (lat !== undefined && lon !== undefined && !byPhoto) centre = { lat, lon }
  const circle = centre && radius !== undefined ? { ...centre, radiusM: radius } : undefined
  return { circle, byDistance: byDistance && circle !== undefined, sortRest }
}

