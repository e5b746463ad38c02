import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * Every command in README.md runs as written. The shell blocks are read from the README itself;
 * `npm start` is started as the README says (on a free port, over the test index, with a
 * temporary key file) and every later command talks to it: `http://localhost:3000` becomes that
 * server's address, and MARS_API_KEY is the key `npm run keys -- create` printed. The answers
 * the README shows under "First five questions" are checked against the live answers (each shown
 * member present with the same value). `npm install` and `npm test` are not re-run from inside
 * the test run (the first would rewrite node_modules under the running tests, the second is this
 * run); test/quiet-install.test.ts checks what a fresh `npm install` would change.
 */
const ROOT = join(import.meta.dir, '..')
const README = readFileSync(join(ROOT, 'README.md'), 'utf8')
const work = mkdtempSync(join(tmpdir(), 'mv-readme-'))
// The one-liners require packages as a user's shell in the clone would find them.
symlinkSync(join(ROOT, 'node_modules'), join(work, 'node_modules'))

interface Block {
  lang: string
  text: string
}
const blocks: Block[] = [...README.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => ({ lang: m[1]!, text: m[2]! }))
const commands = blocks.filter((b) => b.lang === 'sh').flatMap((b) => b.text.split('\n').filter((l) => l.trim() !== ''))

let proc: ReturnType<typeof Bun.spawn> | undefined
let url = ''
let startOutput = ''
let key = ''
const KEYS_DB = join(work, 'keys.sqlite')

beforeAll(async () => {
  const start = commands.find((c) => c.startsWith('npm install && npm start'))
  if (!start) throw new Error('README has no `npm install && npm start` command')
  // The README's command minus `npm install` (see above), as a process group stopped at the end.
  proc = Bun.spawn(['setsid', 'sh', '-c', 'npm start'], { cwd: ROOT, env: { ...process.env, PORT: '0', KEYS_DB, INDEX_DIR: process.env.INDEX_DIR! }, stdout: 'pipe', stderr: 'pipe' })
  const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader()
  const decoder = new TextDecoder()
  let out = ''
  const deadline = Date.now() + 120_000
  while (!/listening on (\S+)/.test(out) && Date.now() < deadline) {
    const { value, done } = await reader.read()
    if (done) break
    out += decoder.decode(value, { stream: true })
  }
  reader.releaseLock()
  url = /listening on (\S+)/.exec(out)?.[1] ?? ''
  startOutput = out
  if (!url) throw new Error(`npm start did not print "listening on": ${out}`)
}, 180_000)
afterAll(async () => {
  if (proc) {
    try {
      process.kill(-proc.pid, 'SIGTERM')
    } catch {
      proc.kill('SIGTERM')
    }
    await proc.exited
  }
  rmSync(work, { recursive: true, force: true })
})

function sh(command: string, cwd: string): { code: number; out: string; err: string } {
  const live = command.split('http://localhost:3000').join(url)
  const r = Bun.spawnSync(['sh', '-c', live], { cwd, env: { ...process.env, KEYS_DB, MARS_API_KEY: key }, stdout: 'pipe', stderr: 'pipe' })
  return { code: r.exitCode ?? -1, out: r.stdout.toString(), err: r.stderr.toString() }
}

/** Every member `shown` states is in `live` with the same value; arrays item by item from the start. */
function shownIn(live: unknown, shown: unknown, at = '$'): string[] {
  if (Array.isArray(shown)) {
    if (!Array.isArray(live)) return [`${at}: not an array`]
    return shown.flatMap((s, i) => shownIn(live[i], s, `${at}[${i}]`))
  }
  if (shown !== null && typeof shown === 'object') {
    if (live === null || typeof live !== 'object') return [`${at}: not an object`]
    return Object.entries(shown).flatMap(([k, v]) => shownIn((live as Record<string, unknown>)[k], v, `${at}.${k}`))
  }
  return live === shown ? [] : [`${at}: README shows ${JSON.stringify(shown)}, the server answers ${JSON.stringify(live)}`]
}

describe('README.md', () => {
  test('is at most 200 lines and its quick start keeps the two commands', () => {
    expect(README.split('\n').length).toBeLessThanOrEqual(200)
    expect(commands).toContain('npm install && npm start   # installs (Bun comes from npm), builds the index from ../shared/data on the first run, serves on PORT (default 3000)')
    expect(commands.some((c) => c.startsWith('npm test '))).toBe(true)
  })

  test('npm start, as written, ends with the catalogue line and `listening on`', () => {
    expect(url).toMatch(/^http:\/\/localhost:\d+$/)
    const lines = startOutput.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('> '))
    expect(lines.at(-2)).toStartWith('catalogue: ')
    expect(lines.at(-1)).toBe(`listening on ${url}`)
  })

  test('npm run keys -- create prints a key that the served API accepts', () => {
    const create = commands.find((c) => c.startsWith('npm run keys -- create'))!
    const r = sh(create, ROOT)
    expect(r.code).toBe(0)
    key = r.out.trim().split('\n').pop()!
    expect(key).toMatch(/^mv_live_[0-9a-f]{40}$/)
  })

  test('every other command runs as written and exits 0 (curl, the DuckDB and Arrow one-liners, npm run fetch -- --help)', () => {
    expect(key).not.toBe('')
    const skipped = (c: string) => c.startsWith('npm install') || c.startsWith('npm test') || c.startsWith('npm run keys') || c.startsWith('export MARS_API_KEY=')
    const failed: string[] = []
    let ran = 0
    for (const c of commands.filter((c) => !skipped(c))) {
      const r = sh(c, c.startsWith('npm ') ? ROOT : work)
      ran++
      if (r.code !== 0) failed.push(`${c}\n  exit ${r.code}: ${(r.err || r.out).slice(0, 400)}`)
    }
    expect(failed).toEqual([])
    expect(ran).toBeGreaterThanOrEqual(10)
  }, 240_000)

  test('the answers shown under "First five questions" are what the server answers', () => {
    const section = README.slice(README.indexOf('## First five questions'), README.indexOf('\n## ', README.indexOf('## First five questions') + 5))
    const pairs = [...section.matchAll(/```sh\n(curl[^\n]+)\n```\s*```json\n([\s\S]*?)\n```/g)]
    expect(pairs.length).toBe(5)
    const problems = pairs.flatMap(([, command, shown]) => {
      const r = sh(command!, work)
      if (r.code !== 0) return [`${command}: exit ${r.code}`]
      return shownIn(JSON.parse(r.out), JSON.parse(shown!)).map((p) => `${command}: ${p}`)
    })
    expect(problems).toEqual([])
  }, 60_000)
})
