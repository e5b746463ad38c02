import type { Store } from './store'

/**
 * Something derived from an index snapshot, made on first use and kept as long as the snapshot
 * lives (a WeakMap keyed by the Store): a reloaded index gets fresh values and the old ones are
 * collected with the old snapshot. Every per-snapshot memo in the query engine goes through here.
 */
export function perSnapshot<T>(make: (store: Store) => T): (store: Store) => T {
  const memo = new WeakMap<Store, T>()
  return (store) => {
    let v = memo.get(store)
    if (v === undefined) {
      v = make(store)
      memo.set(store, v)
    }
    return v
  }
}
