import type { KeyDirectory } from './key-directory'
import { KeyStore } from './key-store'
import { PgKeyStore } from './pg-key-store'

/** True when KEYS_DB names a PostgreSQL server rather than a SQLite file. */
export function isPostgresUrl(keysDb: string): boolean {
  return /^postgres(ql)?:\/\//i.test(keysDb)
}

/** The key store KEYS_DB asks for: PostgreSQL for a `postgres://` URL, else the SQLite file at that path. */
export async function openKeyStore(keysDb: string): Promise<KeyDirectory> {
  return isPostgresUrl(keysDb) ? PgKeyStore.open(keysDb) : KeyStore.open(keysDb)
}
