import { describe, expect, test } from 'bun:test'
import { makeTestApp } from '../setup/test-app'
import { spawnServer } from '../setup/test-app'
import { secretEquals } from '../../src/http/secret-equal'

/** Median of `runs` timings of `fn`, interleaved by the caller. */
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!

describe('secrets are compared in constant time', () => {
  test('secretEquals: true only for the same text; its time does not depend on where a wrong token first differs', () => {
    expect(secretEquals('Bearer abc', 'Bearer abc')).toBe(true)
    for (const wrong of ['Bearer abd', 'Bearer ab', '', null, undefined, 'Bearer abc ']) expect(secretEquals(wrong, 'Bearer abc')).toBe(false)
    const secret = 'k'.repeat(4 << 20)
    const early = 'x' + secret.slice(1)
    const late = secret.slice(0, -1) + 'x'
    const t: Record<'early' | 'late', number[]> = { early: [], late: [] }
    for (let i = 0; i < 21; i++) {
      for (const [name, given] of [['early', early], ['late', late]] as const) {
        const s = performance.now()
        secretEquals(given, secret)
        t[name].push(performance.now() - s)
      }
    }
    const ratio = median(t.late) / median(t.early)
    expect(ratio).toBeGreaterThan(0.6)
    expect(ratio).toBeLessThan(1.6)
  })

  test('the metrics token on the main port goes through secretEquals: right 200; wrong, longer, shorter or missing 401', async () => {
    const t = await makeTestApp({ metricsToken: 'secret-token-42' })
    try {
      const ask = (headers: Record<string, string>) => t.anonymous('/metrics', { headers })
      expect((await ask({ authorization: 'Bearer secret-token-42' })).status).toBe(200)
      for (const value of ['Bearer secret-token-43', 'Bearer secret-token-42x', 'Bearer secret-token-4', 'Bearer ', 'secret-token-42', 'bearer secret-token-42'])
        expect((await ask({ authorization: value })).status, value).toBe(401)
      expect((await ask({})).status).toBe(401)
    } finally {
      await t.close()
    }
  })
})

/** The first non-loopback IPv4 address of this machine, if any. */
function otherAddress(): string | undefined {
  const os = require('node:os') as typeof import('node:os')
  for (const list of Object.values(os.networkInterfaces())) for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address
  return undefined
}

const reachable = (hostname: string, port: number) =>
  fetch(`http://${hostname}:${port}/health`, { signal: AbortSignal.timeout(3_000) }).then(
    (r) => r.status,
    () => 'refused' as const,
  )

describe('HOST: the listen address', () => {
  test('HOST=127.0.0.1 listens on loopback only: 127.0.0.1 answers, 127.0.0.2 and the machine\'s other address are refused', async () => {
    const s = await spawnServer({ HOST: '127.0.0.1', INDEX_DIR: process.env.INDEX_DIR })
    try {
      const started = await s.waitFor('server.started')
      expect(started.host).toBe('127.0.0.1')
      expect(await reachable('127.0.0.1', s.port)).toBe(200)
      expect(await reachable('127.0.0.2', s.port)).toBe('refused')
      const other = otherAddress()
      if (other) expect(await reachable(other, s.port)).toBe('refused')
    } finally {
      await s.stop()
    }
  }, 30_000)

  test('without HOST every interface answers (127.0.0.2 and the machine\'s other address too), and the start-up line says so', async () => {
    const s = await spawnServer({ HOST: '', INDEX_DIR: process.env.INDEX_DIR })
    try {
      expect((await s.waitFor('server.started')).host).toBe('all interfaces')
      expect(await reachable('127.0.0.2', s.port)).toBe(200)
      const other = otherAddress()
      if (other) expect(await reachable(other, s.port)).toBe(200)
    } finally {
      await s.stop()
    }
  }, 30_000)
})
