/**
 * Stable int32 ids for photos that have no v1 id (mru records, raw-feed records).
 *
 * id = 2^30 + (FNV-1a-32(nasa_id) mod 2^30). v1 ids are below 2^30 (the largest real one is 1.3 M), so
 * an assigned id never collides with one. Two nasa_ids that hash alike are resolved by probing: in
 * ascending nasa_id order (code-unit order), each takes the first free id from its hash upward,
 * wrapping within [2^30, 2^31). The id depends only on the set of nasa_ids, never on file order, and
 * an id stays the same when other photos are added unless they win an earlier probe slot (needs a
 * 30-bit hash collision: about one pair in 10^9/N² for N new photos).
 */
export const ASSIGNED_ID_BASE = 2 ** 30

/** FNV-1a 32-bit over the UTF-16 code units of `s` (ids are ASCII, so over its bytes). */
export function fnv1a32(s: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return h >>> 0
}

export function assignedIdFor(nasaId: string): number {
  return ASSIGNED_ID_BASE + (fnv1a32(nasaId) % ASSIGNED_ID_BASE)
}

/** Gives every record lacking an id its assigned id; `taken` holds the ids already in use. Mutates the records. */
export function assignIds<T extends { id?: number; nasa_id: string; id_key?: string }>(records: T[]): void {
  const taken = new Set<number>()
  for (const r of records) if (r.id !== undefined) taken.add(r.id)
  // The id as the record states it (id_key, when the served nasa_id is another form of it).
  const key = (r: T) => r.id_key ?? r.nasa_id
  const todo = records.filter((r) => r.id === undefined).sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0))
  for (const r of todo) {
    let id = assignedIdFor(key(r))
    while (taken.has(id)) id = id + 1 >= 2 ** 31 ? ASSIGNED_ID_BASE : id + 1
    taken.add(id)
    r.id = id
  }
}
