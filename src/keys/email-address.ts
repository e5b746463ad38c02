/**
 * The one e-mail normaliser of the service (decisions.md, E-mail addresses): the dashboard's
 * sign-in form and the keys CLI both pass every address through `normaliseEmail`, so the same
 * mailbox always maps to the same account.
 *
 * trim -> NFKC -> lower-case, then refuse control, zero-width and bidirectional-formatting
 * characters (they make two addresses look alike on screen: RFC 8264 §12 discusses the risk),
 * anything longer than 254 characters (RFC 5321 §4.5.3.1.3: a path holds 256 octets including
 * its angle brackets), and anything that is not `local@domain` with a dotted domain.
 */
export const MAX_EMAIL_LENGTH = 254

/** Input longer than this is refused before any Unicode work, so the cost stays bounded. */
const MAX_RAW_LENGTH = 1024

/** C0/C1 controls, zero-width characters and joiners, word joiner, BOM, bidi marks, embeddings, overrides and isolates. */
const FORBIDDEN = /[\p{Cc}\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF\u061C\u180E]/u

/** local@domain: no whitespace, exactly one @, a domain of dot-separated labels (RFC 1035 label lengths). */
const SHAPE = /^[^\s@]{1,64}@(?=.{1,253}$)(?:[^\s@.]{1,63}\.)+[^\s@.]{2,63}$/u

export class InvalidEmailError extends Error {
  constructor(readonly reason: string) {
    super(`not a usable e-mail address: ${reason}`)
  }
}

/** The normalised address, or InvalidEmailError saying why it is refused (the message never echoes the input). */
export function normaliseEmail(raw: string): string {
  if (typeof raw !== 'string') throw new InvalidEmailError('it is missing')
  if (raw.length > MAX_RAW_LENGTH) throw new InvalidEmailError(`it is longer than ${MAX_EMAIL_LENGTH} characters`)
  const trimmed = raw.trim()
  if (FORBIDDEN.test(trimmed)) throw new InvalidEmailError('it contains control, invisible or text-direction characters')
  const e = trimmed.normalize('NFKC').toLowerCase()
  // Check the result too: what NFKC produced decides, not what the raw text held.
  if (FORBIDDEN.test(e)) throw new InvalidEmailError('it contains control, invisible or text-direction characters')
  if (e.length === 0) throw new InvalidEmailError('it is empty')
  if (e.length > MAX_EMAIL_LENGTH) throw new InvalidEmailError(`it is longer than ${MAX_EMAIL_LENGTH} characters`)
  if (!SHAPE.test(e)) throw new InvalidEmailError('it is not of the form name@example.org')
  return e
}
