/**
 * Canonical sample types (decisions.md, Filters: `sample_type`). Source spellings differ by feed
 * (M2020 `Full`, MSL lower-case `full`, `chemcam prc`, …); the index stores one capitalised spelling:
 *
 *   full → Full, subframe → Subframe, thumbnail → Thumbnail, downsampled → Downsampled,
 *   mixed → Mixed, chemcam prc → ChemCam PRC; any other value: trimmed, lower-cased, first letter
 *   upper-cased; empty and "unknown" → absent.
 */
const KNOWN: Record<string, string> = {
  full: 'Full',
  subframe: 'Subframe',
  'sub-frame': 'Subframe',
  thumbnail: 'Thumbnail',
  downsampled: 'Downsampled',
  'down-sampled': 'Downsampled',
  mixed: 'Mixed',
  'chemcam prc': 'ChemCam PRC',
}

export function canonicalSampleType(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined
  const s = value.trim().replace(/\s+/g, ' ').toLowerCase()
  if (s === '' || s === 'unknown' || s === 'unk') return undefined
  return KNOWN[s] ?? s[0]!.toUpperCase() + s.slice(1)
}

/** The sampling letter of MSL engineering-camera ids and MER product types (SOURCES.md §4.5). */
const LETTER: Record<string, string> = { F: 'Full', S: 'Subframe', D: 'Downsampled', T: 'Thumbnail' }

export function sampleTypeFromLetter(letter: string): string | undefined {
  return LETTER[letter]
}
