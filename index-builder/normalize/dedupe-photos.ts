import type { PhotoRecord } from './photo-record'

/**
 * One photo per image product: NASA image id + product version. Sources can overlap (a v1 record
 * and a raw-feed record of the same product): those are merged. v1 also holds several product
 * versions of one Perseverance image (`…_2I3J01`, `…J02`, `…J03`: same camera, same SCLK to the
 * millisecond, one feed `imageid`); each is a distinct file with its own v1 id, so each stays its
 * own photo and they share the agency image id (a nasa_id search finds all versions). The issue's
 * 11,277 distinct real photos count exactly these products.
 * Within a group the kept record is the one from the richest source (mru/raw feed over v1), then
 * the first read. Its id is its own v1 id, else the smallest v1 id in the group, else none
 * (assigned later by assign-ids.ts).
 */
export interface Candidate {
  record: PhotoRecord
  /** 2 = rich record (mru, raw feeds), 1 = v1. */
  richness: number
  /** Product version from the file name (nasa-id.ts), 1 when none. */
  version: number
  /** The record's place in its page's list (feed pages): where its raw JSON can be read again (raw-ref.ts). */
  item?: number
}

export interface DedupeResult {
  photos: PhotoRecord[]
  /** Records merged into another one, each with the nasa_id and source of the kept record. */
  merged: Array<{ nasa_id: string; dropped_source: string; dropped_id?: number; kept_source: string }>
}

export function dedupePhotos(candidates: readonly Candidate[]): DedupeResult {
  const groups = new Map<string, Candidate[]>()
  for (const c of candidates) {
    const key = `${c.record.nasa_id}#${c.version}`
    const g = groups.get(key)
    if (g) g.push(c)
    else groups.set(key, [c])
  }
  const photos: PhotoRecord[] = []
  const merged: DedupeResult['merged'] = []
  for (const g of groups.values()) {
    let best = g[0]!
    for (const c of g) if (c.richness > best.richness) best = c
    const rec = best.record
    if (rec.id === undefined) {
      let min: number | undefined
      for (const c of g) if (c.record.id !== undefined && (min === undefined || c.record.id < min)) min = c.record.id
      if (min !== undefined) rec.id = min
    }
    for (const c of g) {
      if (c === best) continue
      merged.push({ nasa_id: rec.nasa_id, dropped_source: c.record.source, dropped_id: c.record.id, kept_source: rec.source })
    }
    photos.push(rec)
  }
  return { photos, merged }
}
