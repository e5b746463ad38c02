/**
 * The one e-mail normaliser of the service (decisions.md, E-mail addresses): the dashboard's
 * sign-in form and the keys CLI both pass every address through `normaliseEmail`, so the same
 * mailbox always maps to the same account.
 *
 * trim -> NFKC -> lower-case, then refuse control, zero-width and bidirectional-formatting
 * characters (they make two addresses look alike on screen: RFC 8264 §12 discusses the risk),
 * anything longer than 254 characters (RFC 5321 §4.5.3.1.3: a path holds 256 octets including
 * its angle brackets), and anything that is not one single mailbox.
 *
 * One mailbox, RFC 5321 §4.1.2 (with RFC 6531's UTF-8 for letters beyond ASCII): a Dot-string
 * local part (atoms of atext joined by single dots) `@` a domain of letter-digit-hyphen labels.
 * Nothing of RFC 5322's address syntax gets through: no list separators (`,` `;`), no angle
 * brackets, display names, quoted strings or comments. A mailer (nodemailer) reads such text as
 * an address list, so `victim@example.org,` or `x<victim@example.org>` would have been a new
 * account and a new limit for every spelling, each mailed to the same victim.
 */
export const MAX_EMAIL_LENGTH = 254

/** Input longer than this is refused before any Unicode work, so the cost stays bounded. */
const MAX_RAW_LENGTH = 1024

/** C0/C1 controls, zero-width characters and joiners, word joiner, BOM, bidi marks, embeddings, overrides and isolates. */
const FORBIDDEN = /[\p{Cc}\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF\u061C\u180E]/u

/** atext (RFC 5322 §3.2.3) and, under RFC 6531, any letter, mark or digit beyond ASCII. */
const ATEXT = "[a-z0-9!#$%&'*+/=?^_`{|}~\\-]|[^\\x00-\\x7f\\s\\p{P}\\p{S}\\p{Z}]"
/** A domain label: letters (any script), digits, inner hyphens; 1-63 characters (RFC 1035 §2.3.4). */
const LABEL = '(?=[^.]{1,63}(?:\\.|$))(?:[a-z0-9]|[^\\x00-\\x7f\\s\\p{P}\\p{S}\\p{Z}])(?:[a-z0-9-]|[^\\x00-\\x7f\\s\\p{P}\\p{S}\\p{Z}])*(?<!-)'
/** Dot-string `@` Domain with a dotted domain; the local part at most 64 characters (RFC 5321 §4.5.3.1.1). Linear: atoms and dots alternate. */
const SHAPE = new RegExp(`^(?=[^@]{1,64}@)(?:${ATEXT})+(?:\\.(?:${ATEXT})+)*@(?=.{1,253}$)(?:${LABEL}\\.)+${LABEL}$`, 'u')
/** The last label: at least two characters (a top-level domain). */
const TLD = /\.[^.]{2,63}$/u

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
  if (!SHAPE.test(e) || !TLD.test(e)) throw new InvalidEmailError('it is not one address of the form name@example.org')
  return e
}
