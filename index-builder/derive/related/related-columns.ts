import type { PhotoColumns, TraverseColumns } from '../../../src/store/schema'
import { photoPositions } from './photo-positions'
import { sequenceColumn } from './sequences'
import { stereoPartners } from './stereo-pairs'

/**
 * The columns that relate photos to each other, computed from all photos once they are in their
 * final order (ids assigned) and the traverses are known: position, stereo partner, sequence.
 */
export function addRelatedColumns(p: PhotoColumns, traverses: TraverseColumns): void {
  const { lat, lon } = photoPositions(p, traverses)
  p.lat = lat
  p.lon = lon
  p.stereo_partner = stereoPartners(p)
  p.sequence = sequenceColumn(p)
}
