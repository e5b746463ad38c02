/**
 * Numeric tuples as the feeds write them: "(x,y,z)", "x,y,z", [x, y, z], or {x, y, z}
 * (behaviour.md §8.2, `location.coordinates`). Returns undefined unless exactly `n` finite numbers.
 */
export function parseTuple(value: unknown, n: number): number[] | undefined {
  let parts: unknown[]
  if (Array.isArray(value)) parts = value
  else if (value && typeof value === 'object') {
    const o = value as Record<string, unknown>
    parts = n === 3 ? [o.x, o.y, o.z] : n === 2 ? [o.w ?? o.width, o.h ?? o.height] : []
  } else if (typeof value === 'string') {
    const s = value.trim().replace(/^\(/, '').replace(/\)$/, '')
    if (s === '') return undefined
    parts = s.split(',')
  } else return undefined
  if (parts.length !== n) return undefined
  const out: number[] = []
  for (const p of parts) {
    const v = typeof p === 'number' ? p : typeof p === 'string' && p.trim() !== '' ? Number(p) : NaN
    if (!Number.isFinite(v)) return undefined
    out.push(v)
  }
  return out
}

/** A finite number from a number or numeric string ("-156.098"), else undefined ("UNK", null, ""). */
export function parseNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined
  if (typeof value !== 'string' || value.trim() === '') return undefined
  const v = Number(value)
  return Number.isFinite(v) ? v : undefined
}

/** A non-negative integer from a number or a digit string ("1204"), else undefined. */
export function parseCount(value: unknown): number | undefined {
  const v = parseNumber(value)
  return v !== undefined && Number.isInteger(v) && v >= 0 && v <= 2147483647 ? v : undefined
}
