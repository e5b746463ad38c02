/**
 * API key values (decisions.md, Keys): `mv_live_` + 40 lower-case hex characters drawn from a
 * cryptographic random source (20 bytes). Only the SHA-256 of a key is ever stored.
 */
export const KEY_PREFIX = 'mv_live_'
const KEY_PATTERN = /^mv_live_[0-9a-f]{40}$/

/** A new key value: 20 crypto-random bytes as lower-case hex after the prefix (48 characters in all). */
export function generateKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(20))
  return KEY_PREFIX + Buffer.from(bytes).toString('hex')
}

/** True when `value` has the exact shape of a key. Upper-case hex is not a key we issue, so it fails here. */
export function isWellFormedKey(value: string): boolean {
  return value.length === 48 && KEY_PATTERN.test(value)
}

/**
 * SHA-256 of the key's UTF-8 bytes, 64 lower-case hex characters: the only form a key is stored
 * in. Bun.SHA256's one-shot hash gives the same digest as CryptoHasher('sha256') at about two
 * thirds of its cost (it runs on every keyed request).
 */
export function hashKey(key: string): string {
  return Bun.SHA256.hash(key, 'hex') as string
}

/**
 * Feed tokens (`mv_feed_` + 40 hex, 20 crypto-random bytes): what a feed reader sends as
 * `feed_token=` in a feed URL instead of the key. Not the key and not derived from it, so a feed
 * URL shared or logged somewhere gives no access beyond the feeds; stored only as SHA-256.
 */
export const FEED_TOKEN_PREFIX = 'mv_feed_'
const FEED_TOKEN_PATTERN = /^mv_feed_[0-9a-f]{40}$/

export function generateFeedToken(): string {
  return FEED_TOKEN_PREFIX + Buffer.from(crypto.getRandomValues(new Uint8Array(20))).toString('hex')
}

export function isWellFormedFeedToken(value: string): boolean {
  return value.length === 48 && FEED_TOKEN_PATTERN.test(value)
}
