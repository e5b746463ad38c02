import type { KeyRecord } from '../../src/keys/key-store'

/**
 * The key record auth found for a request, for the hooks after it (ETag, rate limit) and handlers.
 * Held per Request object (like StoreHolder.forRequest), so it can never leak between requests.
 */
const records = new WeakMap<Request, KeyRecord>()

export function setKeyOf(request: Request, record: KeyRecord): void {
  records.set(request, record)
}

/** The authenticated key record, or undefined for requests that need no key. */
export function keyOf(request: Request): KeyRecord | undefined {
  return records.get(request)
}
