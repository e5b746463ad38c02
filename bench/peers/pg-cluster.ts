import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SQL } from 'bun'
import { freePort } from '../lib/processes'
import { ScenarioSkip } from '../lib/scenario-skip'

/**
 * A throwaway PostgreSQL cluster on loopback: installed from Debian's `postgresql` package
 * when missing, created by initdb in a temp folder, started on a free 127.0.0.1 port, and
 * removed afterwards, also when the bench fails or is interrupted (exit/SIGINT/SIGTERM).
 */
export interface PgCluster {
  port: number
  version: string
  sql: SQL
  /** Folder a server-side COPY can read (world-readable). */
  shareDir: string
  stop(): Promise<void>
}

/** Server settings: reads from memory (every row fits in shared_buffers); durability off only to load fast. */
const SETTINGS = {
  listen_addresses: '127.0.0.1',
  shared_buffers: '1GB',
  work_mem: '64MB',
  maintenance_work_mem: '512MB',
  effective_cache_size: '4GB',
  fsync: 'off',
  synchronous_commit: 'off',
  full_page_writes: 'off',
  max_wal_size: '4GB',
  jit: 'off',
}

function findBin(): string | undefined {
  const root = '/usr/lib/postgresql'
  if (existsSync(root)) {
    const versions = readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a))
    if (versions.length) return join(root, versions[0], 'bin')
  }
  const which = Bun.which('initdb')
  return which ? join(which, '..') : undefined
}

function run(cmd: string[], what: string): string {
  const r = Bun.spawnSync(cmd, { stdout: 'pipe', stderr: 'pipe' })
  if (r.exitCode !== 0) throw new Error(`${what} failed (${r.exitCode}): ${r.stderr.toString().trim().split('\n').slice(-3).join(' | ')}`)
  return r.stdout.toString()
}

/**
 * Finds the PostgreSQL server binaries, installing Debian's package when they are missing
 * (not in --quick runs, which skip the peer instead: the install takes longer than the run).
 */
export function ensurePostgres(log: (l: string) => void, install: boolean): string {
  let bin = findBin()
  if (bin) return bin
  if (!install) throw new ScenarioSkip('PostgreSQL is not installed (a full run installs Debian\'s postgresql package; --quick does not)')
  if (process.getuid?.() !== 0) throw new ScenarioSkip('PostgreSQL is not installed and the bench is not root (apt-get install -y postgresql)')
  log('postgres: installing Debian package postgresql (apt-get)')
  const quiet = Bun.spawnSync(['apt-get', 'install', '-y', '-qq', 'postgresql'], { stdout: 'ignore', stderr: 'ignore' })
  if (quiet.exitCode !== 0) run(['sh', '-c', 'apt-get update -qq && apt-get install -y -qq postgresql'], 'apt-get install postgresql')
  bin = findBin()
  if (!bin) throw new Error('apt-get installed postgresql but no initdb was found')
  return bin
}

export async function startPgCluster(log: (l: string) => void, install = true): Promise<PgCluster> {
  const bin = ensurePostgres(log, install)
  const root = mkdtempSync(join(tmpdir(), 'mars-bench-pg-'))
  chmodSync(root, 0o755)
  const asRoot = process.getuid?.() === 0
  // initdb refuses to run as root: run the server as Debian's postgres user then.
  const as = asRoot ? ['runuser', '-u', 'postgres', '--'] : []
  const data = join(root, 'data')
  let started = false
  let stopped = false
  const stopSync = () => {
    if (stopped) return
    stopped = true
    if (started) Bun.spawnSync([...as, join(bin, 'pg_ctl'), '-D', data, '-m', 'immediate', '-w', 'stop'], { stdout: 'ignore', stderr: 'ignore' })
    rmSync(root, { recursive: true, force: true })
  }
  const onSignal = (sig: NodeJS.Signals) => {
    stopSync()
    process.exit(sig === 'SIGINT' ? 130 : 143)
  }
  process.on('exit', stopSync)
  process.on('SIGINT', onSignal)
  process.on('SIGTERM', onSignal)
  try {
    if (asRoot) {
      const pw = run(['id', '-u', 'postgres'], 'id -u postgres').trim()
      const gr = run(['id', '-g', 'postgres'], 'id -g postgres').trim()
      chownSync(root, Number(pw), Number(gr))
    }
    run([...as, join(bin, 'initdb'), '-D', data, '-U', 'postgres', '--auth=trust', '--locale=C', '-E', 'UTF8', '--no-sync'], 'initdb')
    const port = await freePort()
    const opts = [`-p ${port}`, `-k ${root}`, ...Object.entries(SETTINGS).map(([k, v]) => `-c ${k}=${v}`)].join(' ')
    run([...as, join(bin, 'pg_ctl'), '-D', data, '-l', join(root, 'server.log'), '-o', opts, '-w', '-t', '60', 'start'], 'pg_ctl start')
    started = true
    const sql = new SQL({ url: `postgres://postgres@127.0.0.1:${port}/postgres`, max: 1 })
    const version = String((await sql.unsafe('SHOW server_version').values())[0][0])
    log(`postgres: PostgreSQL ${version} on 127.0.0.1:${port} (${root})`)
    return {
      port,
      version,
      sql,
      shareDir: root,
      stop: async () => {
        await sql.close().catch(() => {})
        stopSync()
        process.off('exit', stopSync)
        process.off('SIGINT', onSignal)
        process.off('SIGTERM', onSignal)
      },
    }
  } catch (e) {
    stopSync()
    throw e
  }
}
