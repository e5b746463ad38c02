import type { Store } from '../store/store'
import { ROVERS, ROVER_SLUGS, roverCode, type RoverSlug } from '../catalog/rovers'
import { CAMERAS, CAMERA_NAMES, type CameraFacts } from '../catalog/cameras'
import { notFound, validationError, type ParamError } from '../http/problems'
import { choiceParam, echo, readParam, type ParamSpec } from '../query/params/param-parsers'
import { singleEnvelope, wholeListEnvelope } from '../query/render/envelope'
import { roverStats, type CatalogueStats } from '../query/stats/rover-stats'

/**
 * GET /api/v2/cameras and /cameras/{id} (interface "Camera", "Cameras"; behaviour.md §13).
 *
 * Shape: ONE item per camera name, with `relationships.rovers` listing every rover that has it.
 * decisions.md (Other endpoints) says `GET /cameras/NAVCAM` "answers for every rover that has
 * it" and that a single camera is `{data, links}`: so a camera resource is the name (the
 * interface: the abbreviation "doubles as its name and as the path id"), and the list uses the
 * same resource, so ids are unique in it. (The Anchor listed one row per (rover, camera), so FHAZ
 * appeared three times and /cameras/FHAZ picked one of them at random: behaviour.md §13.2-§13.3,
 * BUG.) Per-rover figures sit in the relationship entry's `meta`: photo_count, first_photo_sol,
 * last_photo_sol (both sols omitted when that rover has no photos from the camera); the
 * camera's `attributes.photo_count` is their sum. Sols are per rover, so no cross-rover
 * first/last sol is given.
 *
 * Order: camera names ascending; rovers in rover-code order. The list is one page (no
 * parameters in the interface; `page`/`per_page` are not read).
 *
 * `rover` on /cameras/{id}: one slug, case-insensitive, narrows the camera to that rover. An
 * unknown slug is a bad parameter: 400 naming the valid slugs, as `rovers` on every list
 * (decisions.md, Filters; the Anchor answered 404, §13.3). A known rover that lacks the camera:
 * 404, as an unknown camera name. Names match case-insensitively; `data.id` is upper case.
 */
export const CAMERAS_PATH = '/api/v2/cameras'

export const ROVER_PARAM: ParamSpec<RoverSlug> = choiceParam('rover', ROVER_SLUGS, 'One rover slug. Narrows the camera to that rover.', (raw) => `unknown rover "${echo(raw)}"; valid: ${ROVER_SLUGS.join(', ')}`)

export function listCameras(store: Store, params: URLSearchParams, base: string): string {
  const stats = roverStats(store)
  return wholeListEnvelope(CAMERA_NAMES.map((name) => cameraJson(name, CAMERAS.filter((c) => c.name === name), stats)), base, CAMERAS_PATH, params)
}

export function getCamera(store: Store, id: string, params: URLSearchParams, base: string): string {
  const errors: ParamError[] = []
  const rover = readParam(params, ROVER_PARAM, errors)
  if (errors.length) throw validationError(errors)
  const name = id.toUpperCase()
  const facts = CAMERAS.filter((c) => c.name === name && (rover === undefined || c.rover === rover))
  if (facts.length === 0) {
    const known = CAMERAS.some((c) => c.name === name)
    throw notFound(
      known
        ? `The ${rover} rover has no camera ${name}. Its cameras: ${CAMERAS.filter((c) => c.rover === rover).map((c) => c.name).join(', ')}.`
        : `No camera is named "${id.slice(0, 40)}". Camera names are listed at ${CAMERAS_PATH}.`,
    )
  }
  const self = `${base}${CAMERAS_PATH}/${encodeURIComponent(name)}${rover ? `?rover=${rover}` : ''}`
  return singleEnvelope(cameraJson(name, facts, roverStats(store)), self)
}

function cameraJson(name: string, facts: CameraFacts[], stats: CatalogueStats): string {
  let total = 0
  const rovers = facts.map((f) => {
    const code = roverCode(f.rover)
    const s = stats.cameras[code]!.get(name)
    total += s?.count ?? 0
    const sols = s ? `,"first_photo_sol":${s.firstSol},"last_photo_sol":${s.lastSol}` : ''
    const r = ROVERS[code]!
    return `{"id":"${r.slug}","type":"rover","attributes":{"name":${JSON.stringify(r.name)},"status":"${r.status}"},"meta":{"photo_count":${s?.count ?? 0}${sols}}}`
  })
  return (
    `{"id":${JSON.stringify(name)},"type":"camera","attributes":{"name":${JSON.stringify(name)},"full_name":${JSON.stringify(facts[0]!.full_name)},` +
    `"photo_count":${total}},"relationships":{"rovers":[${rovers.join(',')}]}}`
  )
}
