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
  const q = new Map<string, number>()
  for (const part of header.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';')
    if (!name) continue
    let weight = 1
    for (const p of params) {
      const m = /^\s*q\s*=\s*([01](?:\.\d{0,3})?)\s*$/.exec(p)
      if (m) weight = Number(m[1])
    }
    q.set(name, weight)
  }
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
