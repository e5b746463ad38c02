/**
 * raw.bin copied from the build's stash through one reused window (encode/raw-file.ts
 * StashWindow) holds the same bytes as the texts copied one at a time, whatever the order: runs
 * of consecutive texts broken anywhere, the order reversed or shuffled (windows that serve too
 * few texts, then texts read alone), texts larger than half a window, empty texts, a window
 * larger than the whole stash.
 */
import { expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { digestFiles } from '../index-builder/encode/manifest'
import { RawSpill, RawStash } from '../index-builder/encode/raw-file'
import { StagingWrites } from '../index-builder/encode/staging-writes'

/** Texts of varied lengths and characters (multi-byte ones too); every 7th one empty; a few long. */
function texts(n: number, seed: number): string[] {
  let s = seed
  const rand = () => ((s = (s * 1103515245 + 12345) >>> 0) / 2 ** 32)
  const out: string[] = []
  for (let i = 0; i < n; i++) {
    if (i % 7 === 3) {
      out.push('')
      continue
    }
    const len = i % 97 === 5 ? 3_000 + Math.floor(rand() * 2_000) : 1 + Math.floor(rand() * 300)
    let t = `{"i":${i},"t":"`
    while (t.length < len) t += rand() < 0.1 ? 'é☃𝄞' : String.fromCharCode(97 + Math.floor(rand() * 26))
    out.push(`${t}"}`)
  }
  return out
}

function shuffled(n: number, seed: number): Int32Array {
  const a = Int32Array.from({ length: n }, (_, i) => i)
  let s = seed
  for (let i = n - 1; i > 0; i--) {
    s = (s * 1103515245 + 12345) >>> 0
    const j = s % (i + 1)
    ;[a[i], a[j]] = [a[j]!, a[i]!]
  }
  return a
}

/** Runs of ascending rows whose lengths vary (1 to 60 rows), the runs themselves in descending order: a feed read by sol, served newest first. */
function runsDescending(n: number): Int32Array {
  const starts: number[] = []
  for (let at = 0, k = 1; at < n; at += 1 + ((k * 37) % 60), k++) starts.push(at)
  const out: number[] = []
  for (let i = starts.length - 1; i >= 0; i--) for (let r = starts[i]!; r < (starts[i + 1] ?? n); r++) out.push(r)
  return Int32Array.from(out)
}

test('raw.bin written through the stash window equals the texts in the given order, for any order and any window size, and its digest taken while writing is the file\'s', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'stash-window-'))
  const stash = new RawStash(dir)
  try {
    const all = texts(3_000, 7)
    const spill = new RawSpill(stash, all.length)
    // Every other text put before the table (as the reader does), the rest as the rows are pushed.
    const at: number[] = []
    for (let i = 0; i < all.length; i++) if (i % 2 === 0) at[i] = all[i] ? stash.put(all[i]!) : 0
    for (let i = 0; i < all.length; i++) {
      if (i % 2 === 0) spill.pushStashed(at[i]!, all[i] ? Buffer.byteLength(all[i]!) : 0)
      else spill.push(all[i])
    }
    const enc = new TextEncoder()
    const n = all.length
    const orders: Record<string, Int32Array> = {
      identity: Int32Array.from({ length: n }, (_, i) => i),
      reversed: Int32Array.from({ length: n }, (_, i) => n - 1 - i),
      shuffled: shuffled(n, 11),
      'runs descending': runsDescending(n),
    }
    let checked = 0
    for (const [name, order] of Object.entries(orders)) {
      const expected = Buffer.concat([...order].map((r) => enc.encode(all[r]!)))
      // 4 KiB windows are smaller than two of the long texts; 64 MiB is larger than the stash.
      for (const windowBytes of [4_096, 16_384, 1 << 20, 1 << 26]) {
        spill.order = order
        const path = join(dir, `raw-${name}-${windowBytes}.bin`)
        // Half of the writes take their digest as they go (a build's staging folder): the same bytes, and that digest is the file's.
        const digests = windowBytes === 16_384 || windowBytes === 1 << 26 ? new StagingWrites(4_099) : undefined
        const ends = spill.writeOrdered(path, digests, { windowBytes })
        if (digests) expect((await digests.files(dir))[basename(path)]).toEqual(digestFiles(dir, 4_099, [basename(path)])[basename(path)])
        const bin = readFileSync(path)
        expect({ name, windowBytes, equal: Buffer.compare(bin, expected) === 0 }).toEqual({ name, windowBytes, equal: true })
        for (let k = 0; k < n; k++) {
          const from = k === 0 ? 0 : ends[k - 1]!
          if (bin.subarray(from, ends[k]!).toString('utf8') !== all[order[k]!]) throw new Error(`${name}, window ${windowBytes}: row ${k} differs`)
        }
        checked++
      }
    }
    expect(checked).toBe(16)
  } finally {
    stash.discard()
    rmSync(dir, { recursive: true, force: true })
  }
})

test('raw.bin written from a stash cut behind the copy (a build\'s last write of it) holds the same bytes, and the stash shrinks to nothing as an order from its end reaches its start', () => {
  const dir = mkdtempSync(join(tmpdir(), 'stash-cut-'))
  const stash = new RawStash(dir)
  try {
    const all = texts(3_000, 13)
    const spill = new RawSpill(stash, all.length)
    for (const t of all) spill.push(t)
    const before = stash.size
    const order = runsDescending(all.length)
    spill.order = order
    const path = join(dir, 'raw.bin')
    const sizes: number[] = []
    const cut = stash.cut.bind(stash)
    stash.cut = (bytes: number) => {
      sizes.push(bytes)
      cut(bytes)
    }
    spill.writeOrdered(path, undefined, { consume: true, windowBytes: 16_384, cutStep: 4_096 })
    const enc = new TextEncoder()
    expect(Buffer.compare(readFileSync(path), Buffer.concat([...order].map((r) => enc.encode(all[r]!))))).toBe(0)
    // Cut many times, each time shorter, down to the first run's texts.
    expect(sizes.length).toBeGreaterThan(50)
    expect(sizes.every((b, i) => i === 0 || b < sizes[i - 1]!)).toBe(true)
    expect(stash.size).toBeLessThan(before / 20)
    expect(() => stash.put('{}')).toThrow(/cut short/)
  } finally {
    stash.discard()
    rmSync(dir, { recursive: true, force: true })
  }
})
