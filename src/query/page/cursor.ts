import { createHash } from 'node:crypto'
import type { ParamError } from '../../http/problems'
import type { PhotoFilters } from '../scan/filters'
import type { Order, SortKey } from '../order/order'
import { sortValueKind, type SortValue } from '../order/sort-values'
import type { CursorPosition } from '../order/walk'

/**
 * Keyset cursors (decisions.md, Sorting and pagination): an opaque base64url token of
 * `[1, fingerprint, [sort values of the last row], id of the last row]`.
 *
 * The position is made of values (never row numbers or ranks), so a walk continues correctly on
 * an index rebuilt with photos added or removed between pages: every photo present in both is
 * returned once, in order. The fingerprint hashes the filters and the sort, not the index
 * version and not the page size or output parameters, so a token is refused (400, parameter
 * `cursor`) only when it was made for another query.
 */
const VERSION = 1

export function fingerprint(filters: PhotoFilters, keys: SortKey[]): string {
  const value = [filters, keys.map((k) => (k.desc ? '-' : '') + k.field)]
  // Infinite bounds are hashed as "inf"/"-inf" (JSON writes them as null). Without a null in the
  // plain text no bound is infinite, so the replacer, which costs a call per value, is skipped.
  let canonical = JSON.stringify(value)
  if (canonical.includes('null')) canonical = JSON.stringify(value, (_k, v) => (v === Infinity ? 'inf' : v === -Infinity ? '-inf' : v))
  let fp = recent.get(canonical)
  if (fp === undefined) {
    fp = createHash('sha256').update(canonical).digest('base64url').slice(0, 16)
    if (recent.size >= RECENT_MAX) recent.clear()
    recent.set(canonical, fp)
  }
  return fp
}

/**
 * Fingerprints of recent queries by their canonical text: a page asks for its own and its next
 * page's, and a hash object per answer cost more than the rest of the cursor work. Keyed on the
 * whole canonical text (the fingerprint is a function of it alone); bounded, dropped whole when full.
 */
const RECENT_MAX = 4096
const recent = new Map<string, string>()

export function encodeCursor(fp: string, values: SortValue[], id: number): string {
  return Buffer.from(JSON.stringify([VERSION, fp, values, id])).toString('base64url')
}

/** Decodes a token for this order and fingerprint; pushes a `cursor` error and returns undefined otherwise. */
export function decodeCursor(token: string, order: Pick<Order, 'keys'>, fp: string, errors: ParamError[]): CursorPosition | undefined {
  const bad = (message: string) => {
    errors.push({ parameter: 'cursor', message })
    return undefined
  }
  if (token.length > 2048 || !/^[A-Za-z0-9_-]+={0,2}$/.test(token)) return bad('is not a cursor this service issued')
  let parsed: unknown
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'))
  } catch {
    return bad('is not a cursor this service issued')
  }
  if (!Array.isArray(parsed) || parsed.length !== 4 || parsed[0] !== VERSION || typeof parsed[1] !== 'string' || !Array.isArray(parsed[2])) {
    return bad('is not a cursor this service issued')
  }
  const [, tokenFp, values, id] = parsed as [number, string, unknown[], unknown]
  if (!Number.isInteger(id) || (id as number) < -(2 ** 31) || (id as number) > 2 ** 31 - 1) return bad('is not a cursor this service issued')
  if (values.length !== order.keys.length) return bad('was made for another sort; start again without cursor')
  for (let i = 0; i < values.length; i++) {
    const v = values[i]
    const kind = sortValueKind(order.keys[i].field)
    if (!(v === null || (kind === 'number' ? typeof v === 'number' && Number.isFinite(v) : typeof v === 'string'))) return bad('is not a cursor this service issued')
    // An id key's value is the row's id itself.
    if (order.keys[i].field === 'id' && v !== id) return bad('is not a cursor this service issued')
  }
  if (tokenFp !== fp) return bad('was made for other filters or another sort; start again without cursor')
  return { values: values as SortValue[], id: id as number }
}
