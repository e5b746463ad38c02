import type { PhotoColumns, TraverseColumns } from '../../../src/store/schema'
import type { KeptRows } from '../kept-rows'
import { photoPositions } from './photo-positions'
import { sequenceColumn } from './sequences'
import { stereoPartners } from './stereo-pairs'

/**
 * The columns that relate photos to each other, computed from all photos once they are in their
 * final order (ids assigned) and the traverses are known: position, stereo partner, sequence.
 * With `kept` (an update's merge: kept-rows.ts), the published rows keep theirs where they cannot change.
 */
export function addRelatedColumns(p: PhotoColumns, traverses: TraverseColumns, kept?: KeptRows): void {
  const { lat, lon } = photoPositions(p, traverses, kept)
  p.lat = lat
  p.lon = lon
  p.stereo_partner = stereoPartners(p, kept)
  p.sequence = sequenceColumn(p, kept)
}
