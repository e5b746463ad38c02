import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ensurePostgres, startPgCluster, type PgCluster } from '../../bench/peers/pg-cluster'
import type { KeyDirectory } from '../../src/keys/key-directory'
import { atEnd } from './at-end'
import { KeyStore } from '../../src/keys/key-store'
import { PgKeyStore, type PgKeyStoreOptions } from '../../src/keys/pg-key-store'

/**
 * The two key stores every key and dashboard test runs against: a fresh SQLite file, and a fresh
 * database in a real PostgreSQL cluster this test process starts on a free loopback port (the
 * bench's throwaway cluster, bench/peers/pg-cluster.ts; stopped once every test file is done: ./at-end.ts).
 */
export interface KeyStoreKind {
  name: 'sqlite' | 'postgres'
  /** A new, empty store location: a SQLite file path or a postgres:// URL of a new database. */
  fresh(): Promise<string>
  /** Opens a store on that location (call twice for two instances sharing it). */
  open(location: string, opts?: PgKeyStoreOptions): Promise<KeyDirectory>
}

let cluster: Promise<PgCluster> | undefined
let databases = 0

/** True when PostgreSQL's server binaries are installed (CI installs them: .ci/run). */
export function postgresAvailable(): boolean {
  try {
    ensurePostgres(() => {}, false)
    return true
  } catch {
    return false
  }
}

function pg(): Promise<PgCluster> {
  if (!cluster) {
    const started = (cluster = startPgCluster(() => {}, false))
    atEnd(async () => (await started).stop())
  }
  return cluster
}

export const SQLITE: KeyStoreKind = {
  name: 'sqlite',
  async fresh() {
    const dir = mkdtempSync(join(tmpdir(), 'mv-keys-'))
    atEnd(() => rmSync(dir, { recursive: true, force: true }))
    return join(dir, 'keys.sqlite')
  },
  async open(location) {
    return KeyStore.open(location)
  },
}

export const POSTGRES: KeyStoreKind = {
  name: 'postgres',
  async fresh() {
    const c = await pg()
    const name = `keys_${process.pid}_${++databases}`
    await c.sql.unsafe(`CREATE DATABASE ${name}`)
    return `postgres://postgres@127.0.0.1:${c.port}/${name}`
  },
  async open(location, opts) {
    return PgKeyStore.open(location, opts)
  },
}

/** Both stores, or SQLite alone (with a console note) where PostgreSQL is not installed. */
export function keyStoreKinds(): KeyStoreKind[] {
  if (postgresAvailable()) return [SQLITE, POSTGRES]
  console.warn('PostgreSQL is not installed: the key-store tests run on SQLite only (apt-get install postgresql)')
  return [SQLITE]
}
