import type { ByteSink } from '../bytes/byte-sink'

/**
 * Rendered records of one derived table (panoramas), kept per snapshot: a row's JSON is the
 * same for every request but for the request's origin inside its links, so its bytes before and
 * after the origin are kept in one arena buffer the first time the row is written, and later
 * answers copy them around the origin (two memcpy per record instead of ~60 small writes).
 *
 * Memory is bounded: the arena grows by doubling up to `limit` bytes; a record that would pass
 * it empties the arena (every row is rendered again on its next use), so a crawl over the whole
 * table never holds more than `limit` bytes however large the table is.
 */
export class RecordArena {
  /** Per row: start, cut (where the origin goes), end in the arena; start -1 = not kept. */
  private readonly at: Int32Array
  private arena: Buffer
  private used = 0

  constructor(rows: number, private readonly limit = ARENA_LIMIT) {
    this.at = new Int32Array(rows * 3).fill(-1)
    this.arena = Buffer.allocUnsafeSlow(Math.min(limit, INITIAL))
  }

  /** Writes row's kept record around `origin` into the sink; false when the row is not kept. */
  write(sink: ByteSink, row: number, origin: Buffer): boolean {
    const i = row * 3
    const start = this.at[i]
    if (start < 0) return false
    const cut = this.at[i + 1]
    sink.copy(this.arena, start, cut)
    sink.bytes(origin)
    sink.copy(this.arena, cut, this.at[i + 2])
    return true
  }

  /** Keeps row's record: src[from, cut) before the origin and src[resume, end) after it. */
  keep(row: number, src: Buffer, from: number, cut: number, resume: number, end: number): void {
    const size = cut - from + (end - resume)
    if (size > this.limit) return
    if (this.used + size > this.arena.length) this.makeRoom(size)
    const start = this.used
    src.copy(this.arena, start, from, cut)
    const mid = start + (cut - from)
    src.copy(this.arena, mid, resume, end)
    this.used = mid + (end - resume)
    const i = row * 3
    this.at[i] = start
    this.at[i + 1] = mid
    this.at[i + 2] = this.used
  }

  /** Bytes the kept records take (tests). */
  get bytes(): number {
    return this.used
  }

  private makeRoom(size: number): void {
    if (this.used + size > this.limit) {
      this.at.fill(-1)
      this.used = 0
      return
    }
    let cap = this.arena.length * 2
    while (cap < this.used + size) cap *= 2
    const next = Buffer.allocUnsafeSlow(Math.min(cap, this.limit))
    this.arena.copy(next, 0, 0, this.used)
    this.arena = next
  }
}

/** 16 MiB: about 25,000 panorama records of the synthetic catalogue (~640 bytes each). */
const ARENA_LIMIT = 16 * 1024 * 1024
const INITIAL = 256 * 1024
