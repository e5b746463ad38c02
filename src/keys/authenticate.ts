import { ProblemError } from '../http/problems'
import type { KeyDirectory, KeyRecord } from './key-directory'

/** interface.md, Errors: the missing-key detail asks for the key in the X-API-Key header. */
export const MISSING_KEY_DETAIL = 'An API key is required: send your key in the X-API-Key header.'
/** interface.md, Errors: the invalid-key detail says the key is invalid (bad format, unknown and revoked alike: behaviour.md §2.3). */
export const INVALID_KEY_DETAIL = 'The API key is invalid. Check the value sent in X-API-Key, or generate a new key.'
/** A key sent as `Authorization: Bearer …` is never read: where it goes instead. */
export const BEARER_KEY_DETAIL = 'API keys are not read from the Authorization header: send your key in the X-API-Key header (the api_key query parameter works on v1 only).'
/** A key sent as `api_key=` on v2, with or without X-API-Key: v2 reads the header alone. */
export const QUERY_KEY_DETAIL = 'On /api/v2 the API key is not read from the api_key query parameter (it works on v1 only): send your key in the X-API-Key header, and keep it out of URLs.'

/**
 * The key record for an X-API-Key value, or the 401 to send (interface.md, Authentication 4).
 * A store that must ask its database (PostgreSQL, on a cache miss) answers with a promise.
 */
export function authenticate(headerValue: string | null, keys: Pick<KeyDirectory, 'lookup'>): KeyRecord | Promise<KeyRecord> {
  if (headerValue === null || headerValue === '') throw new ProblemError('unauthorized', MISSING_KEY_DETAIL)
  const record = keys.lookup(headerValue)
  if (record instanceof Promise) return record.then(found, unreachable)
  return found(record)
}

/** A feed token that answers for no active key. */
export const INVALID_FEED_TOKEN_DETAIL = 'The feed token is invalid: a feed token ends when its key is regenerated or revoked. Make a new one in the dashboard.'

/** The key record a `feed_token` answers for, or the 401 to send (feed routes only). */
export function authenticateFeedToken(token: string, keys: Pick<KeyDirectory, 'lookupFeedToken'>): KeyRecord | Promise<KeyRecord> {
  const record = keys.lookupFeedToken(token)
  if (record instanceof Promise) return record.then(foundFeed, unreachable)
  return foundFeed(record)
}

function foundFeed(record: KeyRecord | undefined): KeyRecord {
  if (!record) throw new ProblemError('unauthorized', INVALID_FEED_TOKEN_DETAIL)
  return record
}

function found(record: KeyRecord | undefined): KeyRecord {
  if (!record) throw new ProblemError('unauthorized', INVALID_KEY_DETAIL)
  return record
}

/** The key database did not answer: 503, never a guess either way. */
function unreachable(): never {
  throw new ProblemError('unavailable', 'The API key store is not reachable. Retry in a few seconds.', { retryAfter: 1, headers: { 'retry-after': '1' } })
}
