import type { Store } from '../store/store'
import type { Utf8Column } from '../store/schema'
import { ROVERS } from '../catalog/rovers'
import { perSnapshot } from '../store/per-snapshot'
import { dayText } from '../query/bytes/day-text'
import { utf8Inner } from '../query/bytes/json-string'
import { formatDay } from '../query/bytes/day-text'
import { v1RoverDays } from '../query/stats/rover-manifest'
import { roverStats } from '../query/stats/rover-stats'
import { V1_ROVERS, v1Camera } from './v1-catalog'

/**
 * Photos and rovers in the v1 API's exact shapes (SOURCES.md §4.4, the saved v1 answers):
 *   photo: {id, sol, camera{id, name, rover_id, full_name}, img_src, earth_date, rover{…}}
 *   rover in a photo: {id, name, landing_date, launch_date, status, max_sol, max_date,
 *                      total_photos, cameras[{name, full_name}]}
 *   rover of /rovers: the same with cameras[{id, name, rover_id, full_name}]
 * Rover figures are the v2 ones (src/query/stats/rover-stats.ts, counted from our catalogue); a rover
 * with no photos has max_sol and max_date null (v1 always had them, so the keys stay).
 * img_src is the one URL v1 gave: the large (1200 px) image, else the full, else medium, small.
 */
export const v1RoverBlocks: (store: Store) => { inPhoto: string[]; listed: string[] } = perSnapshot((store) => {
  const stats = roverStats(store)
  const inPhoto: string[] = []
  const listed: string[] = []
  ROVERS.forEach((facts, code) => {
    const v1 = V1_ROVERS[code]!
    const s = stats.rovers[code]!
    const counted = s.total > 0 ? `"max_sol":${s.maxSol},"max_date":"${formatDay(s.maxDate)}"` : '"max_sol":null,"max_date":null'
    const head =
      `{"id":${v1.id},"name":${JSON.stringify(facts.name)},"landing_date":"${facts.landing_date}","launch_date":"${facts.launch_date}",` +
      `"status":"${facts.status}",${counted},"total_photos":${s.total},"cameras":`
    inPhoto.push(head + JSON.stringify(v1.cameras.map((c) => ({ name: c.name, full_name: c.full_name }))) + '}')
    listed.push(head + JSON.stringify(v1.cameras.map((c) => ({ id: c.id, name: c.name, rover_id: v1.id, full_name: c.full_name }))) + '}')
  })
  return { inPhoto, listed }
})

/** `{"id":…,"name":…,"rover_id":…,"full_name":…}` per (rover code, camera code), made once per snapshot. */
const cameraBlocks = perSnapshot((store) => {
  const dict = store.photos.camera.dict
  return ROVERS.map((_, code) =>
    dict.map((name) => {
      const c = v1Camera(code, name)
      return c ? JSON.stringify({ id: c.id, name: c.name, rover_id: V1_ROVERS[code]!.id, full_name: c.full_name }) : `{"id":null,"name":${JSON.stringify(name)},"rover_id":${V1_ROVERS[code]!.id},"full_name":null}`
    }),
  )
})

/** image_dir values escaped for the inside of a JSON string, once per snapshot. */
const imageDirs = perSnapshot((store) => store.photos.image_dir.dict.map((d) => JSON.stringify(d ?? '').slice(1, -1)))

/** v1 camera id of a row (for v1's order: camera id, then photo id); 0 for a camera v1 lacked. */
export const v1CameraIds = perSnapshot((store) => {
  const dict = store.photos.camera.dict
  return ROVERS.map((_, code) => Int32Array.from(dict, (name) => v1Camera(code, name)?.id ?? 0))
})

/** JSON text of one photo row in v1's shape. */
export function v1PhotoJson(store: Store, row: number): string {
  const p = store.photos
  const code = p.rover[row]!
  const cam = cameraBlocks(store)[code]![p.camera.codes[row]!]!
  const dir = imageDirs(store)[p.image_dir.codes[row]!] ?? ''
  const img = file(p.image_large, row) ?? file(p.image_full, row) ?? file(p.image_medium, row) ?? file(p.image_small, row)
  const src = img === undefined ? 'null' : `"${dir}${img}"`
  return (
    `{"id":${p.id[row]},"sol":${p.sol[row]},"camera":${cam},"img_src":${src},"earth_date":"${dayText(v1Day(store, code, row))}",` +
    `"rover":${v1RoverBlocks(store).inPhoto[code]}}`
  )
}

function file(col: Utf8Column, row: number): string | undefined {
  const a = col.offsets[row]!
  const b = col.offsets[row + 1]!
  return a === b ? undefined : utf8Inner(col, a, b)
}

/** v1's earth_date of a photo: the one date v1 gives its sol (v1RoverDays), else the photo's own. */
function v1Day(store: Store, code: number, row: number): number {
  const p = store.photos
  const sol = p.sol[row]!
  const days = v1RoverDays(store)[code]!.dayOfSol
  const d = sol >= 0 && sol < days.length ? days[sol]! : -1
  return d >= 0 ? d : p.earth_date[row]!
}
