import { acceptRanges } from '../../src/http/accept-ranges'

/**
 * The content coding of an answer, from Accept-Encoding (RFC 9110 §12.5.3): the acceptable
 * coding with the highest q; ties go to the server's order zstd, gzip, br (zstd and gzip bodies
 * are spliced from pieces compressed once, br is compressed per timestamp: ./spliced-body.ts).
 * `identity` or nothing acceptable: undefined (the body goes uncompressed; no 406, decisions.md).
 */
export type Coding = 'zstd' | 'gzip' | 'br'
const ORDER: readonly Coding[] = ['zstd', 'gzip', 'br']
const MAX_HEADER = 512

const memo = new Map<string, Coding | undefined>()

export function chooseCoding(header: string | null): Coding | undefined {
  if (header === null || header === '' || header.length > MAX_HEADER) return undefined
  if (memo.has(header)) return memo.get(header)
  // Codings are listed like media ranges: name, then `;q=` (one parser: src/http/accept-ranges.ts).
  const q = new Map<string, number>()
  for (const { type, q: weight } of acceptRanges(header)) if (type) q.set(type, weight)
  let best: Coding | undefined
  let bestQ = 0
  for (const c of ORDER) {
    const w = q.get(c) ?? q.get('*') ?? 0
    if (w > bestQ) {
      best = c
      bestQ = w
    }
  }
  if (memo.size > 256) memo.clear()
  memo.set(header, best)
  return best
}
