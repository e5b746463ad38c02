import type { Store } from '../../store/store'
import { INT_ABSENT } from '../../store/schema'
import { ROVER_SLUGS } from '../../catalog/rovers'
import { perSnapshot } from '../../store/per-snapshot'

/**
 * How much of NASA's published catalogue the index holds, measured against what NASA's own v1
 * photo manifests state (SOURCES.md §2.1: Curiosity, Opportunity, Spirit; none exists for
 * Perseverance, so it has no share).
 *
 *   nasa_total_photos = Σ over the sols NASA's manifest lists of its total_photos for the sol
 *   catalogue_share   = Σ over those sols of min(our photos on the sol, NASA's total for it)
 *                       ÷ nasa_total_photos, rounded to SHARE_DIGITS decimals
 *
 * The per-sol minimum keeps the share in [0, 1] and means "the part of NASA's stated photos the
 * catalogue can stand for": a sol where we hold more products than NASA's manifest counted
 * (Curiosity has one) does not make up for sols we lack, and photos on sols the manifest does not
 * list (after its last sol) do not count. Our per-sol counts are the builder's sol-manifest rows,
 * which carry NASA's figure for each sol they cover; NASA's totals over all its sols come from
 * manifest.json (`nasa_manifests`). Computed once per snapshot.
 */
export const SHARE_DIGITS = 6

/**
 * Below this combined share (over every rover NASA's manifests cover) the index calls itself a
 * sample in /health: a mirror that holds 99% of NASA's stated photos is the catalogue, give or
 * take products NASA withdrew, and one that holds less is not.
 */
export const SAMPLE_BELOW = 0.99

export interface CatalogueShare {
  nasaTotal: number
  /** Σ min(ours, NASA's) over NASA's sols. */
  held: number
  share: number
}

export interface CatalogueShares {
  /** By rover code; undefined where no NASA manifest covers the rover (or the index records none). */
  rovers: Array<CatalogueShare | undefined>
  /** Over every rover with a share; undefined when there is none. */
  combined: CatalogueShare | undefined
}

export function roundShare(x: number): number {
  const k = 10 ** SHARE_DIGITS
  return Math.round(x * k) / k
}

export const catalogueShares: (store: Store) => CatalogueShares = perSnapshot((store) => {
  const facts = store.manifest.nasa_manifests ?? {}
  const held = ROVER_SLUGS.map(() => 0)
  const m = store.solManifest
  let i = 0
  while (i < m.length) {
    // Rows are ordered by rover, sol, earth_date, camera: one run per (rover, sol).
    const rover = m.rover[i]!
    const sol = m.sol[i]!
    const nasa = m.nasa_total_photos[i]!
    let ours = 0
    for (; i < m.length && m.rover[i] === rover && m.sol[i] === sol; i++) ours += m.photo_count[i]!
    if (nasa !== INT_ABSENT && rover < held.length) held[rover] = held[rover]! + Math.min(ours, nasa)
  }
  let nasaAll = 0
  let heldAll = 0
  const rovers = ROVER_SLUGS.map((slug, code): CatalogueShare | undefined => {
    const f = facts[slug]
    if (!f || f.total_photos <= 0) return undefined
    nasaAll += f.total_photos
    heldAll += held[code]!
    return { nasaTotal: f.total_photos, held: held[code]!, share: roundShare(held[code]! / f.total_photos) }
  })
  return { rovers, combined: nasaAll > 0 ? { nasaTotal: nasaAll, held: heldAll, share: roundShare(heldAll / nasaAll) } : undefined }
})

/** `,"nasa_total_photos":N,"catalogue_share":x` for a rover's attributes, or "" where it has no share. */
export function shareMembers(store: Store, code: number): string {
  const s = catalogueShares(store).rovers[code]
  return s ? `,"nasa_total_photos":${s.nasaTotal},"catalogue_share":${s.share}` : ''
}

/** `sample` and, for a sample, the `note` of /health's index report (SAMPLE_BELOW); nothing when the index records no NASA manifest. */
export function sampleNote(store: Store): { sample?: boolean; note?: string } {
  const combined = catalogueShares(store).combined
  if (!combined) return {}
  if (combined.share >= SAMPLE_BELOW) return { sample: false }
  return { sample: true, note: sampleLine(store.manifest.rows.photos) }
}

/** The one line /health and the landing page say about a sample index. */
export function sampleLine(photos: number): string {
  return `a sample of ${photos.toLocaleString('en-US')} photos; \`npm run fetch -- --all\` mirrors the rest (Opportunity and Spirit: docs/pds-index-tables.md)`
}
