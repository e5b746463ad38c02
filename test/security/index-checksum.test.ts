import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { cpSync, mkdirSync, mkdtempSync, openSync, closeSync, writeSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { KeyStore } from '../../src/keys/key-store'
import { IndexLoadError } from '../../src/store/index-load-error'
import { loadStore, resolveIndexDir } from '../../src/store/load-store'
import { FILES } from '../../src/store/schema'
import { spawnServer } from '../setup/test-app'

/**
 * The default index check verifies content, not only sizes. Overwriting 4 KB in the middle of
 * photos.arrow (same size) was served at start and after SIGHUP, under the same version, so old
 * ETags still got 304 for different content. The builder now writes an XXH3 checksum per file
 * and the loader compares it at every load (SHA-256 stays for INDEX_VERIFY=sha256).
 */
let scratch: string
beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'mv-sec-index-'))
})
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

/** A copy of the test index as `<root>/current -> <version>`, with 4 KB in the middle of `file` overwritten in place when `damage`. */
function indexCopy(name: string, damage?: string): { root: string; dir: string } {
  const src = resolveIndexDir(process.env.INDEX_DIR!)
  const root = join(scratch, name)
  mkdirSync(root)
  const version = src.split('/').pop()!
  const dir = join(root, version)
  cpSync(src, dir, { recursive: true })
  symlinkSync(version, join(root, 'current'))
  if (damage) overwriteMiddle(join(dir, damage))
  return { root, dir }
}

function overwriteMiddle(path: string): void {
  const size = statSync(path).size
  const at = Math.max(0, Math.floor(size / 2) - 2048)
  const old = readFileSync(path).subarray(at, at + 4096)
  const junk = new Uint8Array(old.length).map((_, i) => old[i]! ^ 0x5a)
  const fd = openSync(path, 'r+')
  writeSync(fd, junk, 0, junk.length, at)
  closeSync(fd)
  expect(statSync(path).size).toBe(size)
}

describe('same-size damage is refused by default', () => {
  for (const file of [FILES.photos, FILES.accessPaths, FILES.locations]) {
    test(`4 KB overwritten in the middle of ${file}: loadStore refuses it with the default check, naming the file`, async () => {
      const { dir } = indexCopy(`damaged-${file}`, file)
      let err: unknown
      try {
        await loadStore(dir)
      } catch (e) {
        err = e
      }
      expect(err).toBeInstanceOf(IndexLoadError)
      expect((err as IndexLoadError).file).toBe(join(dir, file))
    })
  }

  test('an intact copy loads with the default check, and INDEX_VERIFY=sha256 still works', async () => {
    const { dir } = indexCopy('intact')
    expect((await loadStore(dir)).version).toBeDefined()
    expect((await loadStore(dir, { verify: 'sha256' })).version).toBeDefined()
  })

  test('the server refuses a damaged index at start (exit 1) and after SIGHUP (keeps serving the old snapshot)', async () => {
    const keysDir = mkdtempSync(join(scratch, 'keys-'))
    const keysDb = join(keysDir, 'keys.sqlite')
    KeyStore.open(keysDb).close()

    const bad = indexCopy('start-damaged', FILES.photos)
    await expect(spawnServer({ KEYS_DB: keysDb, INDEX_DIR: bad.root })).rejects.toThrow(/damaged|checksum/)

    const live = indexCopy('reload-damaged')
    const server = await spawnServer({ KEYS_DB: keysDb, INDEX_DIR: live.root })
    try {
      overwriteMiddle(join(live.dir, FILES.photos))
      server.proc.kill('SIGHUP')
      const refused = await server.waitFor('index.reload-refused')
      expect(String(refused.error)).toContain(FILES.photos)
      expect((await fetch(`${server.url}/health`)).status).toBe(200)
    } finally {
      await server.stop()
    }
  })
})
