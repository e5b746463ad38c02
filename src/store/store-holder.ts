import type { Store } from './store'

/**
 * Holds the current snapshot. A request pins the snapshot it first sees (forRequest), so the
 * ETag, the query and the response of one request always belong to one index version, even
 * when a reload swaps a new snapshot in mid-request.
 */
export class StoreHolder {
  #current: Store
  #pinned = new WeakMap<Request, Store>()
  #listeners: Array<(next: Store, previous: Store) => void> = []

  constructor(initial: Store) {
    this.#current = initial
  }

  get current(): Store {
    return this.#current
  }

  forRequest(request: Request): Store {
    let s = this.#pinned.get(request)
    if (!s) {
      s = this.#current
      this.#pinned.set(request, s)
    }
    return s
  }

  swap(next: Store): void {
    const previous = this.#current
    this.#current = next
    for (const l of this.#listeners) l(next, previous)
  }

  onSwap(listener: (next: Store, previous: Store) => void): void {
    this.#listeners.push(listener)
  }
}
