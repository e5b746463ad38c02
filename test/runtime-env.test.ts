import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { fullBuildEnv, NOT_SERVER_ENV, purgingOff, RUNTIME_ENV, runtimeSettings, withRuntimeEnv } from '../src/runtime-env'
import { runProbe } from '../bench/lib/probe'

const ROOT = join(import.meta.dir, '..')
const scripts = (await Bun.file(join(ROOT, 'package.json')).json()).scripts as Record<string, string>

describe('runtime settings', () => {
  test('withRuntimeEnv fills a setting that is absent or empty and keeps the value an operator set', () => {
    for (const [name, value] of Object.entries(RUNTIME_ENV)) {
      expect(withRuntimeEnv({ PORT: '1' })[name]).toBe(value)
      expect(withRuntimeEnv({ [name]: '' })[name]).toBe(value)
      expect(withRuntimeEnv({ [name]: '250' })[name]).toBe('250')
      expect(withRuntimeEnv({ PORT: '1' }).PORT).toBe('1')
    }
    expect(runtimeSettings({})).toEqual({})
    expect(runtimeSettings(withRuntimeEnv({}))).toEqual({ ...RUNTIME_ENV })
  })

  test('purgingOff is true for the full build\'s settings and any negative purge delay, false for the defaults, a delay or a non-number', () => {
    expect(purgingOff(fullBuildEnv({}))).toBe(true)
    expect(purgingOff({ MIMALLOC_PURGE_DELAY: '-5' })).toBe(true)
    expect(purgingOff({})).toBe(false)
    expect(purgingOff({ ...NOT_SERVER_ENV })).toBe(false)
    for (const v of ['', ' ', '0', '250', 'off']) expect(purgingOff({ MIMALLOC_PURGE_DELAY: v })).toBe(false)
  })

  test('the start and serve scripts give the server every runtime setting as a default the environment can override', () => {
    for (const name of ['start', 'serve']) {
      const serveCommand = scripts[name]!.split('&&').at(-1)!.trim()
      for (const [setting, value] of Object.entries(RUNTIME_ENV)) expect(serveCommand).toContain(`${setting}=\${${setting}:-${value}} bun app/server.ts`)
    }
    // The shell the scripts run in expands it as meant: the default when unset, the operator's value when set.
    for (const [setting, value] of Object.entries(RUNTIME_ENV)) {
      const echo = (env: Record<string, string | undefined>) =>
        Bun.spawnSync(['sh', '-c', `${setting}=\${${setting}:-${value}} sh -c 'printf %s "$${setting}"'`], { env }).stdout.toString()
      expect(echo({ PATH: process.env.PATH })).toBe(value)
      expect(echo({ PATH: process.env.PATH, [setting]: '250' })).toBe('250')
    }
  })

  test("Bun's allocator reads the purge setting at start (MIMALLOC_VERBOSE lists it as -1), so setting it at spawn takes effect", () => {
    const r = Bun.spawnSync([process.execPath, '-e', '0'], { env: { ...process.env, ...RUNTIME_ENV, MIMALLOC_VERBOSE: '1' }, stderr: 'pipe', stdout: 'pipe' })
    const out = r.stderr.toString() + r.stdout.toString()
    expect(out).toMatch(/option 'purge_delay': -1\b/)
  })

  test('a full build spawned with fullBuildEnv runs with purging off and its summary says so; one spawned with NOT_SERVER_ENV runs with the defaults and says nothing', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mv-runtime-env-'))
    try {
      const page = join(ROOT, 'test/fixtures/feeds/m2020-raw-images-page.json')
      const build = (env: Record<string, string | undefined>, out: string) => {
        const r = Bun.spawnSync([process.execPath, 'index-builder/cli.ts', '--only-sources', '--out', join(dir, out), page], { cwd: ROOT, env, stdout: 'pipe', stderr: 'pipe' })
        expect({ code: r.exitCode, stderr: r.stderr.toString() }).toEqual({ code: 0, stderr: '' })
        return r.stdout.toString().split('\n')
      }
      const base = { ...process.env, ...NOT_SERVER_ENV }
      const full = build(fullBuildEnv(base), 'full')
      expect(full.filter((l) => l.startsWith('runtime '))).toEqual([`runtime  ${Object.entries(RUNTIME_ENV).map(([k, v]) => `${k}=${v}`).join(' ')}`])
      expect(fullBuildEnv({ ...base, MIMALLOC_PURGE_DELAY: '250' }).MIMALLOC_PURGE_DELAY).toBe('250')
      const plain = build(base, 'plain')
      expect(plain.some((l) => l.startsWith('timings '))).toBe(true)
      expect(plain.filter((l) => l.startsWith('runtime '))).toEqual([])
      // Purging off drops some collections (release-memory.ts releaseGarbage), never a byte of the index.
      expect(full[0]).toMatch(/^index [0-9a-f]{16} /)
      expect(full[0]).toBe(plain[0])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 120_000)

  test("the bench's builder probe runs without the server's settings even when the bench process has them", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mv-runtime-env-'))
    const script = join(dir, 'print-env.ts')
    writeFileSync(script, `console.log(JSON.stringify({ seen: Object.fromEntries(${JSON.stringify(Object.keys(RUNTIME_ENV))}.map((k) => [k, process.env[k] ?? null])) }))`)
    const saved = Object.fromEntries(Object.keys(RUNTIME_ENV).map((k) => [k, process.env[k]]))
    Object.assign(process.env, RUNTIME_ENV)
    try {
      const server = await runProbe<{ seen: Record<string, string | null> }>(ROOT, script, [])
      expect(server.seen).toEqual({ ...RUNTIME_ENV })
      const builder = await runProbe<{ seen: Record<string, string | null> }>(ROOT, script, [], NOT_SERVER_ENV)
      expect(Object.values(builder.seen).every((v) => v === null)).toBe(true)
    } finally {
      for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k]
      else process.env[k] = v
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
