import { describe, expect, test } from 'bun:test'
import { GarbagePacer } from '../src/query/bytes/garbage-pacer'

const ROOT = new URL('..', import.meta.url).pathname

describe('garbage pacer', () => {
  test('asks for one collection each time the answer bytes made reach the pace, none before', () => {
    let asked = 0
    const p = new GarbagePacer(1000, () => asked++)
    for (let i = 0; i < 9; i++) p.note(100)
    expect(asked).toBe(0)
    p.note(100)
    expect(asked).toBe(1)
    p.note(2500)
    expect(asked).toBe(2)
    expect(p.requests).toBe(2)
  })

  // A process whose heap counts a large buffer (as it counts the mapped index) lets ~a heap's
  // worth of answer garbage pile up before it collects: its RSS grows by it. The answers made
  // through ByteSink (paced) must leave the RSS near where it was; the same texts made without
  // the pacer, in the same process afterwards, show the growth the pacer prevents.
  test('answer texts made through the byte sink keep the RSS bounded where unpaced texts pile up', async () => {
    const script = `
      import { ByteSink } from '${ROOT}src/query/bytes/byte-sink'
      const index = new Uint8Array(1024 * 1024 * 1024); for (let i = 0; i < index.length; i += 4096) index[i] = 1
      Bun.gc(true)
      const sink = new ByteSink()
      const page = Buffer.alloc(139_000, 0x61)
      const rss = () => process.memoryUsage().rss
      const grow = (make) => { const r0 = rss(); let peak = r0; for (let i = 0; i < 3000; i++) { make(); if (i % 100 === 0) peak = Math.max(peak, rss()) } return Math.round((Math.max(peak, rss()) - r0) / 1e6) }
      const paced = grow(() => { sink.reset(); sink.bytes(page); return sink.toString() })
      Bun.gc(true)
      const unpaced = grow(() => page.toString('utf8'))
      console.log(JSON.stringify({ paced, unpaced, index: index[4096] }))
    `
    const proc = Bun.spawn([process.execPath, '-e', script], { stdout: 'pipe', stderr: 'pipe' })
    const out = await new Response(proc.stdout).text()
    expect(await proc.exited).toBe(0)
    const { paced, unpaced } = JSON.parse(out.trim().split('\n').pop()!)
    // 3,000 texts of 139 KB are 417 MB: unpaced, most of it stays mapped until the collector runs.
    expect(unpaced).toBeGreaterThan(250)
    expect(paced).toBeLessThan(160)
  }, 60_000)
})
