/**
 * The four rovers: fixed reference facts (behaviour.md §19.1, interface "Rover").
 * The array order is the rover code used in every column store file (alphabetical by slug,
 * the order GET /rovers lists them in). Counts (max_sol, total_photos) are never stored
 * here: they are computed from the index.
 */
export interface RoverFacts {
  slug: RoverSlug
  name: string
  landing_date: string
  launch_date: string
  status: 'active' | 'complete'
  /** East longitude of the landing site in degrees, for Mars local mean solar time (Mars24). */
  landing_longitude_east: number
}

export type RoverSlug = 'curiosity' | 'opportunity' | 'perseverance' | 'spirit'

export const ROVERS: readonly RoverFacts[] = [
  { slug: 'curiosity', name: 'Curiosity', landing_date: '2012-08-06', launch_date: '2011-11-26', status: 'active', landing_longitude_east: 137.4417 },
  { slug: 'opportunity', name: 'Opportunity', landing_date: '2004-01-25', launch_date: '2003-07-07', status: 'complete', landing_longitude_east: 354.4734 },
  { slug: 'perseverance', name: 'Perseverance', landing_date: '2021-02-18', launch_date: '2020-07-30', status: 'active', landing_longitude_east: 77.4509 },
  { slug: 'spirit', name: 'Spirit', landing_date: '2004-01-04', launch_date: '2003-06-10', status: 'complete', landing_longitude_east: 175.4729 },
] as const

export const ROVER_SLUGS: readonly RoverSlug[] = ROVERS.map((r) => r.slug)

/** Rover code (index into ROVERS) for a slug, or -1. Case-sensitive: callers lower-case first. */
export function roverCode(slug: string): number {
  return ROVER_SLUGS.indexOf(slug as RoverSlug)
}
