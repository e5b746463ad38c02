/**
 * The one documented form of a Perseverance nasa_id (docs/derived-fields.md, "Perseverance
 * image ids"): the agency image id as the v1 records and the mru records state it,
 * `NLF_0670_0726421423_362ECM_N0320604NCAM08111_01_095J`, without the 2-digit product version
 * that the file names append and that some raw-image feed pages put into `imageid` (`…_095J01`).
 * The version stays in the image URLs; the builder serves the id without it, and a nasa_id
 * search written with it finds the photo too. Curiosity and MER ids keep every character (there
 * the version is part of the id).
 */
const M2020_WITH_VERSION = /^([A-Z0-9]{3}_\d{4}_\d{10}_\d{3}[A-Z]{3}_[A-Z0-9_]*[A-Z])(\d{2})$/i

/** A whole Perseverance image id without its product version, and that version (undefined when it carries none, or is no such id). */
export function splitProductVersion(id: string): { id: string; version?: number } {
  const m = M2020_WITH_VERSION.exec(id)
  return m ? { id: m[1]!, version: Number(m[2]) } : { id }
}
