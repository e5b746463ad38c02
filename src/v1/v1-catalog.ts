import { ROVERS, type RoverSlug } from '../catalog/rovers'
import { findCamera } from '../catalog/cameras'

/**
 * The numeric ids the v1 API (corincerami/mars-photo-api) gave rovers and cameras, and the order
 * it listed each rover's cameras in: a v1 client may key on them, so they are fixed facts here,
 * as in the saved v1 answers under ../shared/data/raw (ids seen there: rovers 5-8, cameras 14-17,
 * 19-30, 32, 35, 38, 39, 42-45; the rest from a saved v1 /rovers answer: Opportunity MINITES 18,
 * Spirit MINITES 31, Perseverance 33, 34, 36, 37, 40, 41, 46-49). v1 ordered a day's photos by
 * camera id, then photo id (the saved answers are all in that order).
 */
export interface V1Camera {
  id: number
  name: string
  full_name: string
}

export interface V1Rover {
  id: number
  slug: RoverSlug
  cameras: V1Camera[]
}

const ids = (slug: RoverSlug, list: Array<[string, number]>): V1Camera[] =>
  list.map(([name, id]) => {
    const facts = findCamera(slug, name)
    if (!facts) throw new Error(`v1 camera ${slug}/${name} is not in the catalogue`)
    return { id, name, full_name: facts.full_name }
  })

const MER = (base: number): Array<[string, number]> => [
  ['FHAZ', base],
  ['NAVCAM', base + 2],
  ['PANCAM', base + 3],
  ['MINITES', base + 4],
  ['ENTRY', base + 5],
  ['RHAZ', base + 1],
]

/** By rover code (src/catalog/rovers.ts order); cameras in v1's listing order. */
export const V1_ROVERS: readonly V1Rover[] = ROVERS.map((r): V1Rover => {
  switch (r.slug) {
    case 'curiosity':
      return { id: 5, slug: r.slug, cameras: ids(r.slug, [['FHAZ', 20], ['NAVCAM', 26], ['MAST', 22], ['CHEMCAM', 23], ['MAHLI', 24], ['MARDI', 25], ['RHAZ', 21]]) }
    case 'opportunity':
      return { id: 6, slug: r.slug, cameras: ids(r.slug, MER(14)) }
    case 'spirit':
      return { id: 7, slug: r.slug, cameras: ids(r.slug, MER(27)) }
    case 'perseverance':
      return {
        id: 8,
        slug: r.slug,
        cameras: ids(r.slug, [
          ['EDL_RUCAM', 33], ['EDL_DDCAM', 35], ['EDL_PUCAM1', 36], ['EDL_PUCAM2', 37], ['NAVCAM_LEFT', 38], ['NAVCAM_RIGHT', 39],
          ['MCZ_RIGHT', 40], ['MCZ_LEFT', 41], ['FRONT_HAZCAM_LEFT_A', 42], ['FRONT_HAZCAM_RIGHT_A', 43], ['REAR_HAZCAM_LEFT', 44],
          ['REAR_HAZCAM_RIGHT', 45], ['EDL_RDCAM', 34], ['SKYCAM', 46], ['SHERLOC_WATSON', 47], ['SUPERCAM_RMI', 48], ['LCAM', 49],
        ]),
      }
  }
})

/** The order v1 listed rovers in (its saved /rovers answer): Curiosity, Spirit, Opportunity, Perseverance. */
export const V1_ROVER_ORDER: readonly RoverSlug[] = ['curiosity', 'spirit', 'opportunity', 'perseverance']

/** v1 camera of (rover code, camera name), or undefined for a camera v1 did not have. */
export function v1Camera(code: number, name: string): V1Camera | undefined {
  return V1_ROVERS[code]?.cameras.find((c) => c.name === name)
}
