/**
 * The order the reference page reads in: photos first (what most people come for), then the
 * resources around them, the statistics, places, the journeys, the bulk export, the v1
 * compatibility layer, and the service's own routes last. An operation belongs to the first
 * section whose rule matches its path; a route added later without a rule lands in "service".
 */
export interface ReferenceSection {
  id: string
  title: string
  intro: string
  matches(path: string): boolean
}

export const REFERENCE_SECTIONS: ReferenceSection[] = [
  {
    id: 'photos',
    title: 'Photos',
    intro: 'Search the photos by rover, camera, sol, date, place, Mars time, size and pointing; fetch one or up to 100 by id.',
    matches: (p) => p.startsWith('/api/v2/photos') && !p.startsWith('/api/v2/photos/stats') && !p.startsWith('/api/v2/photos/export'),
  },
  {
    id: 'rovers',
    title: 'Rovers',
    intro: 'The four rovers: mission dates, status, cameras, photo counts and the per-sol manifest.',
    matches: (p) => p.startsWith('/api/v2/rovers') && !/\/(journey|traverse)$/.test(p),
  },
  { id: 'cameras', title: 'Cameras', intro: 'Every camera, with the rovers that carry it.', matches: (p) => p.startsWith('/api/v2/cameras') },
  { id: 'stats', title: 'Statistics', intro: 'Photo counts grouped by camera, rover or sol, for any photo query.', matches: (p) => p.startsWith('/api/v2/photos/stats') },
  { id: 'locations', title: 'Locations', intro: 'The places (site and drive) the rovers photographed from.', matches: (p) => p.startsWith('/api/v2/locations') },
  { id: 'panoramas', title: 'Panoramas', intro: 'Series of photos taken turning the mast at one place, detected from camera pointing.', matches: (p) => p.startsWith('/api/v2/panoramas') },
  {
    id: 'journeys',
    title: 'Journeys',
    intro: "Where a rover went: its journey through the places it photographed, its traverse from NASA's waypoint tables, and the rover page that draws it.",
    matches: (p) => /^\/api\/v2\/rovers\/\{[^}]+\}\/(journey|traverse)$/.test(p) || p.startsWith('/rovers/'),
  },
  { id: 'export', title: 'Export', intro: 'Every photo a query matches in one streamed answer: Arrow, NDJSON or CSV.', matches: (p) => p.startsWith('/api/v2/photos/export') },
  {
    id: 'v1',
    title: 'v1 compatibility',
    intro: 'The Mars Rover Photos API v1 shapes, for existing clients (also under /mars-photos/api/v1). v1 accepts the key as `api_key=` too.',
    matches: (p) => p.startsWith('/api/v1') || p.startsWith('/mars-photos/'),
  },
  { id: 'service', title: 'Service', intro: 'Discovery, this reference, the OpenAPI document and health.', matches: () => true },
]

export function sectionOf(path: string): ReferenceSection {
  return REFERENCE_SECTIONS.find((s) => s.matches(path))!
}
