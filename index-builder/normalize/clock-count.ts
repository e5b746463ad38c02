import { parseImageId, type ImageIdFields } from './parse-image-id'
import type { PhotoRecord } from './photo-record'

/**
 * A record's clock count (SCLK seconds): the one it states (a feed's `extended.sclk`, a label's
 * SPACECRAFT_CLOCK_START_COUNT), else the whole-second count in its image id. The record's own
 * count is the exposure's; the id's is the product's, which for most frames is the exposure to
 * within a couple of seconds but not always: the Perseverance feed's Mastcam-Z frames of sol 2
 * carry ids up to 2,356 s after their exposure (thumbnails) or 122 s before it. Every capture
 * time derived from, or checked against, a record's clock reads this count. (The clock fit and
 * the derivation measurements read the id's count: that is the count lean records have.)
 */
export function clockCountOf(rec: PhotoRecord, id: ImageIdFields = parseImageId(rec.rover, rec.nasa_id)): number | undefined {
  return rec.sclk ?? id.sclk
}
