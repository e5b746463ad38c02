import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { makeTestApp, type TestApp } from './setup/test-app'

/**
 * One version everywhere: package.json is the source; the OpenAPI document's info.version, the
 * API root and /health report the same release, and the CHANGELOG's newest release is it.
 */
const ROOT = join(import.meta.dir, '..')
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string; engines: Record<string, string> }

let t: TestApp
beforeAll(async () => {
  t = await makeTestApp()
})
afterAll(() => t.close())

describe('the release version', () => {
  test('package.json holds a semantic version 2.x (the path prefix /api/v2 names the major)', () => {
    expect(pkg.version).toMatch(/^2\.\d+\.\d+$/)
  })

  test('the OpenAPI document, the API root and /health report the version of package.json', async () => {
    const doc = (await (await t.anonymous('/api/v2/openapi.json')).json()) as { info: { version: string } }
    const root = (await (await t.request('/api/v2')).json()) as { version: string }
    const health = (await (await t.anonymous('/health')).json()) as { version: string }
    expect([doc.info.version, root.version, health.version]).toEqual([pkg.version, pkg.version, pkg.version])
  })

  test("the CHANGELOG's newest release section is package.json's version, dated, in Keep a Changelog form", () => {
    const log = readFileSync(join(ROOT, 'CHANGELOG.md'), 'utf8')
    expect(log).toContain('## [Unreleased]')
    const releases = [...log.matchAll(/^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})$/gm)].map((m) => m[1])
    expect(releases[0]).toBe(pkg.version)
    // Newest first, each version once.
    const sorted = [...releases].sort((a, b) => b!.localeCompare(a!, 'en', { numeric: true }))
    expect(releases).toEqual(sorted)
    expect(new Set(releases).size).toBe(releases.length)
  })

  test('engines name the Node.js range npm and the OpenAPI tools need and the Bun release package.json installs', () => {
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version: string }> }
    expect(pkg.engines.node).toBe('^20.19.0 || >=22.12.0')
    expect(pkg.engines.bun).toBe(`>=${lock.packages['node_modules/bun']!.version}`)
  })
})
