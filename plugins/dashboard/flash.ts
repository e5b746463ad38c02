import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto'

/**
 * The one-time message a dashboard action leaves for the page its redirect leads to
 * (POST/redirect/GET): a notice, and a new key to show once. It is kept server-side by the key
 * store (`putFlash` / `takeFlash`, deleted on first read, so a reload or a second tab never sees
 * it again), bound to the session, and sealed with AES-256-GCM under a key derived from the
 * session id, which the server never stores (it keeps only the id's SHA-256): a copy of the
 * database opens no flash. Nothing of it travels in a URL.
 */
export interface Flash {
  notice: string
  /** A key value just created or regenerated. */
  key?: string
  /** A feed token just made. */
  feedToken?: string
}

/** How long a flash waits for its page: the redirect follows at once; a tab closed before it loses the key (regenerate again). */
export const FLASH_TTL_MS = 5 * 60_000

const IV_BYTES = 12
const TAG_BYTES = 16

function sealKey(sessionSecret: string): Buffer {
  return createHash('sha256').update('mars-photos dashboard flash\0').update(sessionSecret).digest()
}

export function sealFlash(flash: Flash, sessionSecret: string): string {
  const iv = randomBytes(IV_BYTES)
  const c = createCipheriv('aes-256-gcm', sealKey(sessionSecret), iv)
  const body = Buffer.concat([c.update(JSON.stringify(flash), 'utf8'), c.final()])
  return Buffer.concat([iv, c.getAuthTag(), body]).toString('base64url')
}

/** The flash, or undefined when it was sealed for another session or altered. */
export function openFlash(sealed: string, sessionSecret: string): Flash | undefined {
  const raw = Buffer.from(sealed, 'base64url')
  if (raw.length <= IV_BYTES + TAG_BYTES) return undefined
  try {
    const d = createDecipheriv('aes-256-gcm', sealKey(sessionSecret), raw.subarray(0, IV_BYTES))
    d.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES))
    const text = Buffer.concat([d.update(raw.subarray(IV_BYTES + TAG_BYTES)), d.final()]).toString('utf8')
    const v = JSON.parse(text) as Flash
    return typeof v.notice === 'string' && (v.key === undefined || typeof v.key === 'string') ? v : undefined
  } catch {
    return undefined
  }
}
