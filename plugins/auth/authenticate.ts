import { ProblemError } from '../../src/http/problems'
import type { KeyRecord, KeyStore } from '../../src/keys/key-store'
import { isV1Path } from '../../src/v1/v1-paths'

/** interface.md, Errors: the missing-key detail asks for the key in the X-API-Key header. */
export const MISSING_KEY_DETAIL = 'An API key is required: send your key in the X-API-Key header.'
/** interface.md, Errors: the invalid-key detail says the key is invalid (bad format, unknown and revoked alike: behaviour.md §2.3). */
export const INVALID_KEY_DETAIL = 'The API key is invalid. Check the value sent in X-API-Key, or generate a new key.'

/** The key record for an X-API-Key value, or the 401 to send (interface.md, Authentication 4). */
export function authenticate(headerValue: string | null, keys: Pick<KeyStore, 'lookup'>): KeyRecord {
  if (headerValue === null || headerValue === '') throw new ProblemError('unauthorized', MISSING_KEY_DETAIL)
  const record = keys.lookup(headerValue)
  if (!record) throw new ProblemError('unauthorized', INVALID_KEY_DETAIL)
  return record
}
