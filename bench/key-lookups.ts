/**
 * What the key store costs a request: the key lookup of an API request (SQLite and PostgreSQL,
 * cached and uncached) and the session lookup of a dashboard request, each against a baseline
 * measured in the same run.
 *
 * - Store level: `lookup(key)` and `session(hash)` alone. "Uncached" PostgreSQL uses a store whose
 *   cache holds one entry while two keys alternate, so every lookup is a query.
 * - Request level, through the assembled app (app.handle, no network): `GET /api/v2/rovers` with
 *   each store (baseline: SQLite, cached), and `GET /dashboard` signed in (session lookup, key
 *   and counters read) against signed out (no lookup), on each store.
 *
 * PostgreSQL runs in a throwaway cluster on a free loopback port (./peers/pg-cluster.ts).
 * `bun bench/key-lookups.ts [--quick]`. Prints a table; nothing is written.
 */
import { SQL } from 'bun'
import { join, resolve } from 'node:path'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { createApp } from '../app/app'
import { loadConfig } from '../src/config'
import type { KeyDirectory } from '../src/keys/key-directory'
import { KeyStore } from '../src/keys/key-store'
import { PgKeyStore } from '../src/keys/pg-key-store'
import { MemoryCounterStore } from '../src/limits/memory-counter-store'
import { openMailer } from '../src/mail/mailer'
import { loadStore } from '../src/store/load-store'
import { StoreHolder } from '../src/store/store-holder'
import { measureAsync, round3, type MeasureOptions, type Timing } from './lib/measure'
import { startPgCluster } from './peers/pg-cluster'
import { hashSecret, newSecret } from '../plugins/dashboard/tokens'

const quick = process.argv.includes('--quick')
const O: MeasureOptions = quick
  ? { rounds: 3, budgetMs: 150, minSamples: 100, maxSamples: 3000, warmup: 100 }
  : { rounds: 7, budgetMs: 400, minSamples: 300, maxSamples: 20000, warmup: 500 }
const log = (l: string) => process.stderr.write(l + '\n')

const indexDir = resolve(process.env.INDEX_DIR ?? 'data/index-test')
const dir = mkdtempSync(join(tmpdir(), 'mv-bench-keys-'))
const pg = await startPgCluster(log, false)
await pg.sql.unsafe('CREATE DATABASE bench_keys')
const pgUrl = `postgres://postgres@127.0.0.1:${pg.port}/bench_keys`
const rows: Array<{ what: string; t: Timing; baseline?: string }> = []

try {
  const sqlite = KeyStore.open(join(dir, 'keys.sqlite'))
  const pgCached = await PgKeyStore.open(pgUrl)
  const pgUncached = await PgKeyStore.open(pgUrl, { cacheEntries: 1 })
  // Tables that are not empty: 2,000 other keys besides the ones measured.
  for (let i = 0; i < 2000; i++) sqlite.create(`filler${i}@example.org`)
  const filler = new SQL({ url: pgUrl, max: 1 })
  await filler.unsafe(
    `INSERT INTO api_keys (email, key_hash, status, created_at, updated_at)
     SELECT 'filler' || g || '@example.org', md5(g::text) || md5((g + 1)::text), 'active', now()::text, now()::text FROM generate_series(1, 2000) g`,
  )
  await filler.close()
  const keyA = { sqlite: sqlite.create('a@example.org'), pg: await pgCached.create('a@example.org') }
  const keyB = await pgCached.create('b@example.org')
  const now = Date.now()
  const sessions: Record<string, string> = {}
  for (const [name, s] of [['sqlite', sqlite], ['postgres', pgCached]] as Array<[string, KeyDirectory]>) {
    const secret = newSecret()
    await s.startSession(hashSecret(secret), 'a@example.org', now, 3600_000)
    sessions[name] = secret
  }

  log('store level')
  rows.push({ what: 'sqlite lookup (cached)', t: await measureAsync(async () => sqlite.lookup(keyA.sqlite), O) })
  rows.push({ what: 'postgres lookup (cached)', t: await measureAsync(async () => pgCached.lookup(keyA.pg), O), baseline: 'sqlite lookup (cached)' })
  let flip = false
  rows.push({ what: 'postgres lookup (uncached: one query)', t: await measureAsync(async () => pgUncached.lookup((flip = !flip) ? keyA.pg : keyB), O), baseline: 'postgres lookup (cached)' })
  // Checked, not assumed: the uncached store asks the database on every lookup. A row changed
  // behind the stores' backs (no generation bump) is seen by the uncached store at once, while the
  // cached one still answers from its cache.
  const probe = await pgCached.create('probe@example.org')
  const sees = async () => [Boolean(await pgCached.lookup(probe)), Boolean(await pgUncached.lookup(keyB)), Boolean(await pgUncached.lookup(probe))]
  await Bun.sleep(600) // past the next generation poll, which drops caches after our own change
  await sees()
  const direct = new SQL({ url: pgUrl, max: 1 })
  await direct.unsafe(`UPDATE api_keys SET status = 'revoked' WHERE email = 'probe@example.org'`)
  await direct.close()
  const [cachedSees, , uncachedSees] = await sees()
  if (!cachedSees || uncachedSees) throw new Error(`cache check failed: cached store sees the probe key ${cachedSees}, uncached ${uncachedSees}`)
  log('checked: the uncached store saw a change made behind its back at once; the cached store answered from its cache')
  rows.push({ what: 'sqlite session(hash)', t: await measureAsync(async () => sqlite.session(hashSecret(sessions.sqlite!), Date.now()), O) })
  rows.push({ what: 'postgres session(hash)', t: await measureAsync(async () => pgCached.session(hashSecret(sessions.postgres!), Date.now()), O), baseline: 'sqlite session(hash)' })

  log('request level (app.handle)')
  const snapshot = await loadStore(indexDir)
  const appOn = (keys: KeyDirectory) =>
    createApp({ config: loadConfig({ indexDir, redisUrl: undefined, smtpUrl: undefined, rateLimitHourly: 1e9, rateLimitDaily: 1e9 }), stores: new StoreHolder(snapshot), keys, limits: new MemoryCounterStore(), log: { log() {} }, mailer: openMailer({ write() {} }) })
  const apps = { sqlite: appOn(sqlite), pgCached: appOn(pgCached), pgUncached: appOn(pgUncached) }
  const api = (app: ReturnType<typeof appOn>, key: () => string) => async () => {
    const r = await app.handle(new Request('http://localhost/api/v2/rovers', { headers: { 'x-api-key': key() } }))
    if (r.status !== 200) throw new Error(`GET /api/v2/rovers answered ${r.status}`)
    await r.arrayBuffer()
  }
  rows.push({ what: 'GET /api/v2/rovers, sqlite key (cached)', t: await measureAsync(api(apps.sqlite, () => keyA.sqlite), O) })
  rows.push({ what: 'GET /api/v2/rovers, postgres key (cached)', t: await measureAsync(api(apps.pgCached, () => keyA.pg), O), baseline: 'GET /api/v2/rovers, sqlite key (cached)' })
  rows.push({ what: 'GET /api/v2/rovers, postgres key (uncached)', t: await measureAsync(api(apps.pgUncached, () => ((flip = !flip) ? keyA.pg : keyB)), O), baseline: 'GET /api/v2/rovers, postgres key (cached)' })
  const page = (app: ReturnType<typeof appOn>, cookie: string, signedIn: boolean) => async () => {
    const r = await app.handle(new Request('http://localhost/dashboard', { headers: { cookie } }))
    const html = await r.text()
    if (html.includes('Signed in as') !== signedIn) throw new Error(`expected the ${signedIn ? 'account' : 'sign-in'} page`)
  }
  for (const [name, app] of [['sqlite', apps.sqlite], ['postgres', apps.pgCached]] as const) {
    const form = `mv_form=${newSecret()}`
    rows.push({ what: `GET /dashboard signed out, ${name}`, t: await measureAsync(page(app, form, false), O) })
    rows.push({ what: `GET /dashboard signed in, ${name}`, t: await measureAsync(page(app, `${form}; mv_session=${sessions[name]}`, true), O), baseline: `GET /dashboard signed out, ${name}` })
  }
  sqlite.close()
  await pgCached.close()
  await pgUncached.close()
} finally {
  await pg.stop()
  rmSync(dir, { recursive: true, force: true })
}

const byName = new Map(rows.map((r) => [r.what, r.t]))
console.log(`key and session lookups (${quick ? 'quick' : 'full'}; p50/p99 in µs, medians of ${O.rounds} rounds; PostgreSQL ${pg.version} on loopback)`)
console.log('| what | p50 µs | p99 µs | vs baseline (p50) |')
console.log('|---|---:|---:|---|')
for (const r of rows) {
  const base = r.baseline ? byName.get(r.baseline) : undefined
  const ratio = base ? `${round3(r.t.p50 / base.p50)}× ${r.baseline}` : 'baseline'
  console.log(`| ${r.what} | ${round3(r.t.p50 * 1000)} | ${round3(r.t.p99 * 1000)} | ${ratio} |`)
}
