import type { Store } from './store'
import { contextOf } from '../http/request-context'

/**
 * Holds the current snapshot. A request pins the snapshot it first sees (forRequest, kept in the
 * request's context: src/http/request-context.ts), so the ETag, the query and the response of
 * one request always belong to one index version, even when a reload swaps a new snapshot in
 * mid-request.
 */
export class StoreHolder {
  #current: Store
  #listeners: Array<(next: Store, previous: Store) => void> = []

  constructor(initial: Store) {
    this.#current = initial
  }

  get current(): Store {
    return this.#current
  }

  forRequest(request: Request): Store {
    const ctx = contextOf(request)
    return (ctx.store ??= this.#current)
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
