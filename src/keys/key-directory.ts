import { InvalidEmailError, normaliseEmail } from './email-address'

/**
 * What the service asks of its key store, whichever database holds it (KEYS_DB): an embedded
 * SQLite file (./key-store.ts, synchronous) or PostgreSQL shared by several instances
 * (./pg-key-store.ts, asynchronous). Both keep the same tables (./key-schema.ts) and behave the
 * same; the suite in test/key-directory.test.ts runs against both. Methods may answer directly or
 * with a promise: callers that can wait `await` them, and the hot path (auth) takes a direct
 * answer when the store has one.
 *
 * Nothing here ever stores a key value, a sign-in token or a session id: only their SHA-256 (the
 * lookup cache keeps recently presented key values in memory for its short TTL: ./lookup-cache.ts).
 */
export type MaybePromise<T> = T | Promise<T>

/** Operator-set limits of one key; a missing figure means "the configured default". */
export interface KeyLimits {
  hourly?: number
  daily?: number
  concurrent?: number
}

/** What auth hands on to the rest of the pipeline. Never holds the key value. */
export interface KeyRecord {
  /** Record id: rate-limit counters are keyed by it, never by the key or its hash. */
  id: number
  email: string
  limits: KeyLimits
}

/** One account's key: owner, dates, status, never key values or hashes. */
export interface KeyListing {
  id: number
  email: string
  status: 'active' | 'revoked'
  created_at: string
  updated_at: string
  limits: KeyLimits
}

/**
 * Bounds on sign-in links. None of them lets a stranger lock an owner out:
 * - `perAddress`: links one client may ask for one address in `windowMs` (the client's own
 *   requests for that address; another client asking for the same address does not count);
 * - `perClient`: links one client may ask for, whatever the addresses, in `windowMs`;
 * - `perMailbox`: links mailed to one address, from any client, in `mailboxWindowMs`. It only
 *   bounds the mail an address receives: its window is no longer than a link's life, so when it
 *   is full the address holds `perMailbox` links mailed within that window, which still work
 *   (nothing a new request does invalidates them), and the owner signs in with one of them.
 */
export interface SignInLimits {
  perAddress: number
  perClient: number
  windowMs: number
  perMailbox: number
  mailboxWindowMs: number
}

export type SignInIssue = 'issued' | 'address-limit' | 'client-limit' | 'mailbox-full'

/** Links issued, as counted by a store inside its transaction. */
export interface SignInCounts {
  /** For this address by this client in `windowMs`. */
  pair: number
  /** By this client in `windowMs`. */
  client: number
  /** For this address by anyone in `mailboxWindowMs`. */
  mailbox: number
}

/** The one decision both stores make from their counts (checked in this order). */
export function signInOutcome(n: SignInCounts, limits: SignInLimits): SignInIssue {
  if (n.pair >= limits.perAddress) return 'address-limit'
  if (n.client >= limits.perClient) return 'client-limit'
  if (n.mailbox >= limits.perMailbox) return 'mailbox-full'
  return 'issued'
}

export interface SessionRecord {
  email: string
  expiresAt: number
}

/** Sign-in link rows are kept this long (they are the record the sign-in limits count), then purged. */
export const SIGN_IN_RETENTION_MS = 24 * 3600_000

export class KeyStoreError extends Error {}

/** The shared normaliser (./email-address.ts), its refusal reported as a store error (the CLI prints those). */
export function ownerEmail(email: string): string {
  try {
    return normaliseEmail(email)
  } catch (e) {
    if (e instanceof InvalidEmailError) throw new KeyStoreError(e.message)
    throw e
  }
}

export interface KeyDirectory {
  readonly kind: 'sqlite' | 'postgres'
  /** Where the keys live, fit for a log line (a file path, or a PostgreSQL URL without credentials). */
  readonly location: string
  /** The active key record for a presented key, or undefined (bad format, unknown, revoked). */
  lookup(key: string): MaybePromise<KeyRecord | undefined>
  /** A new key for `email` (one per address); the value is returned once and never stored. */
  create(email: string, limits?: KeyLimits): MaybePromise<string>
  /** Replaces the key of `email` (the old one stops working) and re-activates it. */
  regenerate(email: string): MaybePromise<string>
  revoke(email: string): MaybePromise<void>
  setLimits(email: string, limits: { hourly?: number | null; daily?: number | null; concurrent?: number | null }): MaybePromise<void>
  list(): MaybePromise<KeyListing[]>
  /** The key of one address, or undefined when it has none. */
  keyOf(email: string): MaybePromise<KeyListing | undefined>
  /**
   * A new feed token for the active key of `email` (replacing any earlier one, which stops
   * working); the value is returned once and never stored. Refused without an active key.
   */
  createFeedToken(email: string): MaybePromise<string>
  /** The active key record a feed token answers for, or undefined (bad format, unknown, ended, key revoked). */
  lookupFeedToken(token: string): MaybePromise<KeyRecord | undefined>
  /** Whether `email` has a feed token (never its value). */
  hasFeedToken(email: string): MaybePromise<boolean>
  /** Erases the account: its key (which stops working), its sessions and its sign-in links. */
  deleteAccount(email: string): MaybePromise<void>

  /**
   * Records a sign-in link (by its token's hash) unless the address or the client already asked
   * for `limits.perAddress` / `limits.perClient` links in the window. Atomic across instances.
   */
  issueSignIn(tokenHash: string, email: string, client: string, nowMs: number, ttlMs: number, limits: SignInLimits): MaybePromise<SignInIssue>
  /** Marks the link used and returns its address, or undefined when it is unknown, used or expired. Single use, atomically. */
  redeemSignIn(tokenHash: string, nowMs: number): MaybePromise<string | undefined>
  startSession(sessionHash: string, email: string, nowMs: number, ttlMs: number): MaybePromise<void>
  /** The live session of that hash, or undefined (unknown or expired). */
  session(sessionHash: string, nowMs: number): MaybePromise<SessionRecord | undefined>
  /** Ends the session and drops its flash. */
  endSession(sessionHash: string): MaybePromise<void>
  /**
   * Leaves one sealed message (dashboard/flash.ts) for the session's next page, replacing any
   * earlier one; it expires at `expiresAt`.
   */
  putFlash(sessionHash: string, email: string, sealed: string, expiresAt: number): MaybePromise<void>
  /** The session's flash, removed in the same step (one reader only, across instances), or undefined. */
  takeFlash(sessionHash: string, nowMs: number): MaybePromise<string | undefined>
  close(): MaybePromise<void>
}
