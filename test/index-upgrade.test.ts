import { afterAll, expect, test } from 'bun:test'
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { copyIndex } from './setup/index-copy'
import { FILES } from '../src/store/schema'

/**
 * An index published by a builder that did not write the traverse tables is not "complete" for
 * `--if-missing` (npm start), so it is rebuilt instead of leaving a server that cannot load it.
 */
const work = mkdtempSync(join(tmpdir(), 'mv-upgrade-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))

test('--if-missing rebuilds an index whose manifest lacks traverses.arrow and journey-stops.arrow, and the rebuilt one has them', () => {
  // an older builder's index: another content version, without the two files
  const { dir, version: copied } = copyIndex(work, 'old')
  const version = '00000000older000'
  renameSync(join(dir, copied), join(dir, version))
  rmSync(join(dir, 'current'))
  symlinkSync(version, join(dir, 'current'))
  const manifestPath = join(dir, version, FILES.manifest)
  const m = JSON.parse(readFileSync(manifestPath, 'utf8'))
  for (const f of [FILES.traverses, FILES.journeyStops]) {
    delete m.files[f]
    rmSync(join(dir, version, f))
  }
  m.version = version
  writeFileSync(manifestPath, JSON.stringify(m))
  const r = Bun.spawnSync([process.execPath, join(import.meta.dir, '../index-builder/cli.ts'), '--out', dir, '--if-missing'], { stdout: 'pipe', stderr: 'pipe' })
  expect(r.exitCode).toBe(0)
  expect(r.stdout.toString()).not.toContain('not rebuilding')
  const now = JSON.parse(readFileSync(join(dir, 'current', FILES.manifest), 'utf8'))
  expect(now.files[FILES.traverses]).toBeDefined()
  expect(existsSync(join(dir, 'current', FILES.journeyStops))).toBe(true)
  expect(now.rows.traverse_points).toBe(1366 + 515 + 8528)
  // and a complete index is left alone
  const again = Bun.spawnSync([process.execPath, join(import.meta.dir, '../index-builder/cli.ts'), '--out', dir, '--if-missing'], { stdout: 'pipe', stderr: 'pipe' })
  expect(again.stdout.toString()).toContain('not rebuilding')
}, 30_000) // two real builds in child processes: seconds each on a loaded 2-core machine
