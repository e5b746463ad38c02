import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import zlib from 'node:zlib'
import { makeTestApp, type TestApp } from './setup/test-app'
import { chooseCoding } from '../plugins/compression/accept-encoding'

let t: TestApp
beforeAll(async () => {
  t = await makeTestApp()
})
afterAll(() => t.close())

const PAGE = '/api/v2/photos?per_page=100&field_set=complete'
const decode: Record<string, (b: Uint8Array) => Buffer> = { gzip: zlib.gunzipSync, br: zlib.brotliDecompressSync, zstd: zlib.zstdDecompressSync }

async function get(path: string, acceptEncoding?: string) {
  const r = await t.request(path, { headers: acceptEncoding ? { 'accept-encoding': acceptEncoding } : {} })
  return { r, bytes: new Uint8Array(await r.arrayBuffer()) }
}

describe('compression', () => {
  test('a 100-photo page shrinks at least 10x in gzip, br and zstd, and decodes to the uncompressed answer (timestamp aside)', async () => {
    const plain = await get(PAGE)
    expect(plain.r.headers.get('content-encoding')).toBeNull()
    const plainText = new TextDecoder().decode(plain.bytes)
    for (const coding of ['gzip', 'br', 'zstd']) {
      const { r, bytes } = await get(PAGE, coding)
      expect(r.headers.get('content-encoding')).toBe(coding)
      expect(r.headers.get('vary')).toBe('Accept, Accept-Encoding')
      expect(plain.bytes.length / bytes.length).toBeGreaterThanOrEqual(10)
      const text = decode[coding]!(bytes).toString()
      const strip = (s: string) => s.replace(/"timestamp":"[^"]+"/, '')
      expect(strip(text)).toBe(strip(plainText))
      expect(JSON.parse(text).meta.timestamp).toMatch(/^\d{4}-\d\d-\d\dT/)
    }
  })

  test('a repeated answer reuses the pieces compressed once: each response carries its own timestamp', async () => {
    const a = await get(PAGE + '&sol_min=1', 'gzip')
    await Bun.sleep(3)
    const b = await get(PAGE + '&sol_min=1', 'gzip')
    const ta = JSON.parse(zlib.gunzipSync(a.bytes).toString()).meta.timestamp
    const tb = JSON.parse(zlib.gunzipSync(b.bytes).toString()).meta.timestamp
    expect(ta).not.toBe(tb)
    // Same pieces around a different timestamp: the bodies differ only in the stamp and the CRC trailer.
    expect(a.bytes.length).toBe(b.bytes.length)
  })

  test('small bodies, identity and q=0 are sent uncompressed; every JSON answer varies on Accept-Encoding', async () => {
    const small = await get('/api/v2/photos?per_page=1&fields=sol', 'gzip')
    expect(small.r.headers.get('content-encoding')).toBeNull()
    expect(small.r.headers.get('vary')).toBe('Accept, Accept-Encoding')
    expect((await get(PAGE, 'identity')).r.headers.get('content-encoding')).toBeNull()
    expect((await get(PAGE, 'gzip;q=0, br;q=0, zstd;q=0')).r.headers.get('content-encoding')).toBeNull()
  })

  test('Accept-Encoding picks the highest q, ties in the order zstd, gzip, br; * counts', () => {
    expect(chooseCoding('gzip, deflate, br, zstd')).toBe('zstd')
    expect(chooseCoding('gzip;q=0.5, br;q=0.8')).toBe('br')
    expect(chooseCoding('deflate')).toBeUndefined()
    expect(chooseCoding('*')).toBe('zstd')
    expect(chooseCoding('*;q=0, gzip')).toBe('gzip')
    expect(chooseCoding('x'.repeat(600))).toBeUndefined()
  })

  test('the OpenAPI document is compressed too', async () => {
    const r = await t.anonymous('/api/v2/openapi.json', { headers: { 'accept-encoding': 'br' } })
    expect(r.headers.get('content-encoding')).toBe('br')
    expect(JSON.parse(zlib.brotliDecompressSync(new Uint8Array(await r.arrayBuffer())).toString()).openapi).toBe('3.1.0')
  })
})
