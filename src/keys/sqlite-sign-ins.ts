import type { Database } from 'bun:sqlite'
import { SIGN_IN_RETENTION_MS, signInOutcome, type SessionRecord, type SignInIssue, type SignInLimits } from './key-directory'

/**
 * Sign-in links and sessions in the SQLite key file (tables in ./key-schema.ts). Every row is
 * keyed by a SHA-256, never by a token or a session id. Each decision is one IMMEDIATE
 * transaction, so two processes sharing the file cannot both pass a limit or both redeem a link.
 */
export class SqliteSignIns {
  readonly #db: Database

  constructor(db: Database) {
    this.#db = db
  }

  issue(tokenHash: string, email: string, client: string, nowMs: number, ttlMs: number, limits: SignInLimits): SignInIssue {
    return this.#db
      .transaction((): SignInIssue => {
        this.#db.query(`DELETE FROM sign_in_links WHERE created_at < ?`).run(nowMs - SIGN_IN_RETENTION_MS)
        this.#db.query(`DELETE FROM sessions WHERE expires_at <= ?`).run(nowMs)
        this.#db.query(`DELETE FROM session_flashes WHERE expires_at <= ?`).run(nowMs)
        const since = nowMs - limits.windowMs
        const count = (where: string, ...args: Array<string | number>) => this.#db.query<{ n: number }, Array<string | number>>(`SELECT count(*) AS n FROM sign_in_links WHERE ${where}`).get(...args)!.n
        const outcome = signInOutcome(
          {
            pair: count('email = ? AND client = ? AND created_at > ?', email, client, since),
            client: count('client = ? AND created_at > ?', client, since),
            mailbox: count('email = ? AND created_at > ?', email, nowMs - limits.mailboxWindowMs),
          },
          limits,
        )
        if (outcome !== 'issued') return outcome
        this.#db
          .query(`INSERT INTO sign_in_links (token_hash, email, client, created_at, expires_at) VALUES (?, ?, ?, ?, ?)`)
          .run(tokenHash, email, client, nowMs, nowMs + ttlMs)
        return 'issued'
      })
      .immediate()
  }

  redeem(tokenHash: string, nowMs: number): string | undefined {
    const row = this.#db
      .query<{ email: string }, [number, string, number]>(
        `UPDATE sign_in_links SET used_at = ? WHERE token_hash = ? AND used_at IS NULL AND expires_at > ? RETURNING email`,
      )
      .get(nowMs, tokenHash, nowMs)
    return row?.email
  }

  startSession(sessionHash: string, email: string, nowMs: number, ttlMs: number): void {
    this.#db.query(`INSERT INTO sessions (session_hash, email, created_at, expires_at) VALUES (?, ?, ?, ?)`).run(sessionHash, email, nowMs, nowMs + ttlMs)
  }

  session(sessionHash: string, nowMs: number): SessionRecord | undefined {
    const row = this.#db
      .query<{ email: string; expires_at: number }, [string, number]>(`SELECT email, expires_at FROM sessions WHERE session_hash = ? AND expires_at > ?`)
      .get(sessionHash, nowMs)
    return row ? { email: row.email, expiresAt: Number(row.expires_at) } : undefined
  }

  endSession(sessionHash: string): void {
    this.#db.query(`DELETE FROM sessions WHERE session_hash = ?`).run(sessionHash)
    this.#db.query(`DELETE FROM session_flashes WHERE session_hash = ?`).run(sessionHash)
  }

  putFlash(sessionHash: string, email: string, sealed: string, expiresAt: number): void {
    this.#db
      .query(`INSERT INTO session_flashes (session_hash, email, sealed, expires_at) VALUES (?, ?, ?, ?) ON CONFLICT (session_hash) DO UPDATE SET email = excluded.email, sealed = excluded.sealed, expires_at = excluded.expires_at`)
      .run(sessionHash, email, sealed, expiresAt)
  }

  takeFlash(sessionHash: string, nowMs: number): string | undefined {
    const row = this.#db.query<{ sealed: string; expires_at: number }, [string]>(`DELETE FROM session_flashes WHERE session_hash = ? RETURNING sealed, expires_at`).get(sessionHash)
    return row && Number(row.expires_at) > nowMs ? row.sealed : undefined
  }

  /** Erases every session, flash and sign-in link of an address (account deletion; inside the caller's transaction). */
  forget(email: string): void {
    this.#db.query(`DELETE FROM sessions WHERE email = ?`).run(email)
    this.#db.query(`DELETE FROM session_flashes WHERE email = ?`).run(email)
    this.#db.query(`DELETE FROM sign_in_links WHERE email = ?`).run(email)
  }
}
