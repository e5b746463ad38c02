/**
 * The dashboard's secrets: sign-in tokens (in the e-mailed link), session ids (in the cookie) and
 * the anonymous form secret (in a cookie before sign-in). Each is 32 bytes from the system's
 * cryptographic source (256 bits, above the 128 the design asks for), written as base64url
 * (RFC 4648 §5) so it fits a URL and a cookie unescaped. Only its SHA-256 is ever stored.
 */
export const SECRET_BYTES = 32
/** Length of a secret in base64url without padding. */
export const SECRET_LENGTH = 43
const SECRET_PATTERN = /^[A-Za-z0-9_-]{43}$/

/** A sign-in link works this long (15 minutes), once. */
export const SIGN_IN_TTL_MS = 15 * 60_000
/** A session lasts this long after sign-in, then the user signs in again. */
export const SESSION_TTL_MS = 12 * 3600_000
/** The window of the sign-in limits (per address, per client). */
export const SIGN_IN_WINDOW_MS = 3600_000

export function newSecret(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(SECRET_BYTES))).toString('base64url')
}

/** True when `value` has the exact shape of a secret we issue (anything else is refused before any lookup). */
export function isWellFormedSecret(value: unknown): value is string {
  return typeof value === 'string' && value.length === SECRET_LENGTH && SECRET_PATTERN.test(value)
}

/** SHA-256 of the secret, 64 hex characters: the only form stored. A 256-bit random secret needs no salt or slow hash. */
export function hashSecret(secret: string): string {
  return Bun.CryptoHasher.hash('sha256', secret, 'hex') as string
}
