import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { RUNTIME_ENV, runtimeSettings, withRuntimeEnv } from '../app/runtime-env'

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
})
