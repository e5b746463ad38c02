/**
 * The NASA image id from an image URL or file name (SOURCES.md §4.5): the file stem without
 * extension, without the size suffix of the M2020 browse products (`_320`, `_800`, `_1200`), without
 * the MER gallery suffix `-BR`, and for Perseverance without the 2-digit product version that the
 * file name appends to the feed's `imageid` (`…_095J01.png` ↔ imageid `…_095J`, checked against both
 * mru records). MSL and MER ids keep their last characters: there the version is part of the id
 * (`…FHAZ00323M_`, PDS product id `…L0M1`).
 */

const M2020_ID = /^[A-Z0-9]{3}_\d{4}_\d{10}_\d{3}[A-Z]{3}_/

export interface NasaIdParts {
  nasaId: string
  /** The product version digits removed from a Perseverance file name (1 when none). */
  version: number
}

/** NASA image id and product version from a URL or a bare file name. */
export function nasaIdFromUrl(url: string): NasaIdParts {
  const q = url.search(/[?#]/)
  const path = q >= 0 ? url.slice(0, q) : url
  let stem = path.slice(path.lastIndexOf('/') + 1)
  stem = stem.replace(/\.(jpe?g|png|img|tiff?|gif)$/i, '')
  stem = stem.replace(/-BR$/i, '')
  if (M2020_ID.test(stem)) {
    stem = stem.replace(/_(320|800|1200)$/, '')
    const v = /^(.*[A-Z])(\d{2})$/.exec(stem)
    if (v) return { nasaId: v[1]!, version: Number(v[2]) }
  }
  return { nasaId: stem, version: 1 }
}

/** True when the id has the Perseverance layout (where versions are stripped). */
export function isM2020ImageId(id: string): boolean {
  return M2020_ID.test(id)
}
