/**
 * bun test preload (bunfig.toml): every test runs against the index built from the real records
 * in ../shared/data (the builder's default sources: raw/, incoming/ and pending/). It is built once into data/index-test and rebuilt only when it is stale:
 * the fingerprint covers the content of every module the builder imports (followed from
 * index-builder/cli.ts) and the size and mtime of every real data file. When nothing changed
 * this costs a few milliseconds. Several `bun test` processes may start at once: the build runs
 * under a lock file, and a process that waited re-checks the fingerprint before building.
 * Sets process.env.INDEX_DIR to the absolute path of the index folder.
 */
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { afterAll } from 'bun:test'
import { runAtEnd } from './at-end'

const REPO = resolve(import.meta.dir, '../..')
const SOURCE_DIRS = [resolve(REPO, '../shared/data/raw'), resolve(REPO, '../shared/data/incoming'), resolve(REPO, '../shared/data/pending')]
const OUT = join(REPO, 'data', 'index-test')
const FINGERPRINT = join(OUT, '.fingerprint')
const LOCK = join(REPO, 'data', '.index-test.lock')
const LOCK_STALE_MS = 5 * 60_000

function builderModules(): string[] {
  const transpiler = new Bun.Transpiler({ loader: 'ts' })
  const seen = new Set<string>()
  const todo = [join(REPO, 'index-builder', 'cli.ts')]
  while (todo.length > 0) {
    const file = todo.pop()!
    if (seen.has(file)) continue
    seen.add(file)
    for (const imp of transpiler.scanImports(readFileSync(file, 'utf8'))) {
      if (!imp.path.startsWith('.')) continue
      const base = resolve(dirname(file), imp.path)
      const hit = [base, `${base}.ts`, join(base, 'index.ts')].find((p) => existsSync(p) && statSync(p).isFile())
      if (hit) todo.push(hit)
    }
  }
  return [...seen].sort()
}

function dataFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name)
    if (statSync(p).isDirectory()) dataFiles(p, out)
    else out.push(p)
  }
  return out
}

function fingerprint(): string {
  const h = new Bun.CryptoHasher('sha256')
  for (const f of builderModules()) h.update(`${f.slice(REPO.length)}\0`).update(readFileSync(f))
  for (const dir of SOURCE_DIRS) {
    if (!existsSync(dir)) continue
    for (const f of dataFiles(dir)) {
      const st = statSync(f)
      h.update(`${f}\0${st.size}\0${st.mtimeMs}\n`)
    }
  }
  return h.digest('hex')
}

function fresh(print: string): boolean {
  try {
    return readFileSync(FINGERPRINT, 'utf8') === print && existsSync(join(OUT, 'current', 'manifest.json'))
  } catch {
    return false
  }
}

async function withLock<T>(fn: () => T): Promise<T> {
  mkdirSync(dirname(LOCK), { recursive: true })
  for (;;) {
    try {
      closeSync(openSync(LOCK, 'wx'))
      writeFileSync(LOCK, String(process.pid))
      break
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e
      if (lockAbandoned()) rmSync(LOCK, { force: true })
      else await Bun.sleep(200)
    }
  }
  try {
    return fn()
  } finally {
    rmSync(LOCK, { force: true })
  }
}

function lockAbandoned(): boolean {
  try {
    if (Date.now() - statSync(LOCK).mtimeMs > LOCK_STALE_MS) return true
    const pid = Number(readFileSync(LOCK, 'utf8'))
    if (!pid) return false // being written
    process.kill(pid, 0)
    return false
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ESRCH' || (e as NodeJS.ErrnoException).code === 'ENOENT'
  }
}

const print = fingerprint()
if (!fresh(print)) {
  await withLock(() => {
    if (fresh(print)) return
    rmSync(FINGERPRINT, { force: true })
    const t0 = performance.now()
    const r = Bun.spawnSync([process.execPath, join(REPO, 'index-builder', 'cli.ts'), '--out', OUT, '--keep', '1'], { cwd: REPO, stdout: 'pipe', stderr: 'pipe' })
    if (r.exitCode !== 0) throw new Error(`test preload: building the real index into ${OUT} failed:\n${r.stderr.toString()}${r.stdout.toString()}`)
    writeFileSync(FINGERPRINT, print)
    process.stderr.write(`[preload] built the real test index into data/index-test in ${Math.round(performance.now() - t0)} ms\n`)
  })
}
process.env.INDEX_DIR = OUT

// Once every test file is done (a global hook: it is registered by the preload).
afterAll(runAtEnd)
