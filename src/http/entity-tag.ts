/**
 * Weak entity tags for GET resources (decisions.md, Keys, limits, caching; RFC 9110 §8.8.3).
 *
 * The tag is computed before the query runs, from what fully determines the answer: the index
 * version of the snapshot pinned for the request, the origin used in absolute links, and the
 * canonical request key (src/http/request-key.ts). A new index changes every tag. It is weak
 * (`W/`) because the body is semantically, not byte-for-byte, the same (meta.timestamp moves).
 */
export function entityTag(indexVersion: string, origin: string, requestKey: string): string {
  const h = Bun.hash.wyhash(`${indexVersion}\u0000${origin}\u0000${requestKey}`)
  return `W/"${indexVersion.slice(0, 16)}-${h.toString(36)}"`
}

/**
 * RFC 9110 §13.1.2: If-None-Match is `*` or a list of entity tags. 'tag' when a listed tag matches
 * by the weak comparison of §8.8.3.2 (opaque tags equal, W/ ignored): the answer is 304 now.
 * 'star' for `*`: true only when a current representation exists, which the caller learns by
 * answering the request (a 404 or 400 stays one). undefined: the condition holds, answer normally.
 */
export function ifNoneMatch(header: string, tag: string): 'tag' | 'star' | undefined {
  // Compared in place (no slice per listed tag): this runs on every revalidation.
  const skip = tag.startsWith('W/') ? 2 : 0
  const opaqueLength = tag.length - skip
  let i = 0
  const n = header.length
  while (i < n) {
    const c = header.charCodeAt(i)
    if (c === 0x20 || c === 0x09 || c === 0x2c) {
      i++
      continue
    }
    if (c === 0x2a) return 'star'
    let start = i
    if (header.startsWith('W/', i)) start = i += 2
    if (header.charCodeAt(i) !== 0x22) {
      // not an entity tag: skip to the next comma
      const next = header.indexOf(',', i)
      if (next < 0) return undefined
      i = next + 1
      continue
    }
    const close = header.indexOf('"', i + 1)
    if (close < 0) return undefined
    if (close + 1 - start === opaqueLength && sameChars(header, start, tag, skip, opaqueLength)) return 'tag'
    i = close + 1
  }
  return undefined
}

/** Whether a[aFrom, aFrom + n) and b[bFrom, bFrom + n) are the same characters. */
function sameChars(a: string, aFrom: number, b: string, bFrom: number, n: number): boolean {
  for (let k = 0; k < n; k++) if (a.charCodeAt(aFrom + k) !== b.charCodeAt(bFrom + k)) return false
  return true
}

/** True when the answer is 304 for a resource that exists (ifNoneMatch gives 'tag' or 'star'). */
export function ifNoneMatchMatches(header: string, tag: string): boolean {
  return ifNoneMatch(header, tag) !== undefined
}
