import type { Store } from '../store/store'
import { ROVERS, roverCode } from '../catalog/rovers'
import { notFound, validationError, type ParamError } from '../http/problems'
import { parsePathId } from '../query/answer/get-photo'
import { roverManifests, v1RoverDays } from '../query/stats/rover-manifest'
import { dayJson, roverHead } from '../resources/manifest-resource'
import { V1_ROVER_ORDER } from './v1-catalog'
import { v1Rover } from './v1-errors'
import { v1PhotoJson, v1RoverBlocks } from './v1-photo-json'

/**
 * The v1 resources other than a day's photos (./v1-photos.ts), in v1's exact shapes:
 *   /rovers            {"rovers":[rover…]}  (v1's order: Curiosity, Spirit, Opportunity, Perseverance)
 *   /rovers/{name}     {"rover":rover}
 *   /photos/{id}       {"photo":photo}
 *   /manifests/{name}  {"photo_manifest":{name, landing_date, launch_date, status, max_sol,
 *                       max_date, total_photos, photos:[{sol, earth_date, total_photos, cameras[]}]}}
 * The manifest is the builder's manifest table (src/query/stats/rover-manifest.ts), the same one the
 * v2 manifest serves, with one entry per sol as v1 had (v1RoverDays: NASA's v1 date of the sol,
 * else its earliest date): computed from our catalogue, so it agrees with the v1 photo endpoints
 * (and may differ from NASA's figures where we hold fewer photos; v2's manifest shows both).
 */
export function v1RoverList(store: Store): string {
  const listed = v1RoverBlocks(store).listed
  return `{"rovers":[${V1_ROVER_ORDER.map((slug) => listed[roverCode(slug)]).join(',')}]}`
}

export function v1RoverByName(store: Store, name: string): string {
  return `{"rover":${v1RoverBlocks(store).listed[v1Rover(name)]}}`
}

export function v1PhotoById(store: Store, id: string): string {
  const errors: ParamError[] = []
  const n = parsePathId(id, errors)
  if (n === undefined) throw validationError(errors)
  const row = store.paths.rowOfId(n)
  if (row < 0) throw notFound(`No photo has id ${n}.`)
  return `{"photo":${v1PhotoJson(store, row)}}`
}

export function v1Manifest(store: Store, name: string): string {
  const code = v1Rover(name)
  const m = roverManifests(store)[code]!
  const head = m.total > 0 ? roverHead(ROVERS[code]!, m) : roverHead(ROVERS[code]!, m).replace(/,"total_photos":/, ',"max_sol":null,"max_date":null,"total_photos":')
  return `{"photo_manifest":{${head},"photos":[${v1RoverDays(store)[code]!.days.map((d) => dayJson(d, false)).join(',')}]}}`
}
