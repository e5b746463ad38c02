import { compareValues, sortValue } from '../../src/query/order/sort-values'
import type { SortField } from '../../src/store/access-paths'
import type { PhotoColumns } from '../../src/store/schema'

/**
 * The order a sort field's access path must hold, by comparison (the tests' reference for the
 * builder's linear sorts): values ascending, photos without a value last, ties by id.
 */
export function compareByField(p: PhotoColumns, field: SortField, a: number, b: number): number {
  const va = sortValue(p, field, a)
  const vb = sortValue(p, field, b)
  if (va === null || vb === null) {
    if (va !== vb) return va === null ? 1 : -1
  } else {
    const c = compareValues(va, vb)
    if (c !== 0) return c
  }
  return p.id[a]! - p.id[b]!
}
