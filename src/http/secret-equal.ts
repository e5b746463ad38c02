import { timingSafeEqual } from 'node:crypto'

/**
 * Whether a secret a request presented equals the configured one, in time that depends on
 * neither where they first differ nor their lengths: both are reduced to their SHA-256 (32 bytes
 * whatever was sent) and those are compared with `timingSafeEqual`. `===` on strings stops at the
 * first differing character, which lets a client that can time answers learn a token a prefix at
 * a time. Every secret the service compares as given (the metrics token, the dashboard's form
 * token) goes through here; keys, sign-in tokens and session ids are looked up by their hash,
 * never compared.
 */
export function secretEquals(given: string | null | undefined, expected: string): boolean {
  const a = Bun.CryptoHasher.hash('sha256', given ?? '') as Uint8Array
  const b = Bun.CryptoHasher.hash('sha256', expected) as Uint8Array
  // Both digests are always computed and compared: a missing value costs what a wrong one does.
  return timingSafeEqual(a, b) && given !== null && given !== undefined
}
