import { ROVER_SLUGS, type RoverSlug } from '../../src/catalog/rovers'

/** A rover slug from a rover name in any case ("Curiosity", "curiosity"), else undefined. */
export function roverFromName(name: unknown): RoverSlug | undefined {
  if (typeof name !== 'string') return undefined
  const s = name.trim().toLowerCase()
  return (ROVER_SLUGS as readonly string[]).includes(s) ? (s as RoverSlug) : undefined
}

/**
 * The rover an image URL belongs to, from the URL families of SOURCES.md §4.1, §4.2 and §4.4:
 * `mars2020-raw-images` → perseverance; `msl-raw-images` → curiosity; `mer/gallery/all/1|2/` →
 * opportunity | spirit (MER1 is Opportunity, MER2 Spirit). Else undefined.
 */
export function roverFromUrl(url: string): RoverSlug | undefined {
  if (/\/mars2020[-_/]/i.test(url)) return 'perseverance'
  if (/\/msl[-_/]/i.test(url)) return 'curiosity'
  const mer = /\/mer\/gallery\/all\/([12])\//i.exec(url)
  if (mer) return mer[1] === '1' ? 'opportunity' : 'spirit'
  if (/\/mer1[a-z]{2}_/i.test(url)) return 'opportunity'
  if (/\/mer2[a-z]{2}_/i.test(url)) return 'spirit'
  return undefined
}
