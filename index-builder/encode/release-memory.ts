import { edenGC } from 'bun:jsc'
import { purgingOff } from '../../src/runtime-env'

/**
 * Collects garbage now when the arrays just dropped are big (`droppedBytes` of 32 MiB or more:
 * a column of a million-row table, a mapped file). The engine frees a typed array's memory only when a collection finds it dead, and
 * by its own schedule that may come after the next column or sort has been allocated on top:
 * a 19M-photo build would then hold two copies of its table. Small tables (tests, the real
 * sources) skip it: a full collection of a big test heap costs more than it saves.
 */
export function releaseMemory(droppedBytes: number): void {
  if (droppedBytes >= 1 << 25 && typeof Bun !== 'undefined') Bun.gc(true)
}

/**
 * A full collection for garbage that young collections (collectYoung) already free as it goes:
 * each page's text and parsed objects while reading. With purging off (src/runtime-env.ts: the
 * full build from the page store) the build keeps its high-water mark, which the later stages
 * set, not reading, so these collections only cost: measured at 1.5 million records (same hour,
 * same pages, two runs each), 132-136 -> 114-117 CPU seconds without them, peak RSS 4,653-4,692
 * -> 4,697-4,739 MiB. With the allocator's defaults they stay (a 1.5M-record build read without
 * them peaked at 7 GB, its live records under 3). Normalising's collections stay either way:
 * without them that build's peak rose to 5,016 MiB and faulting in the extra memory cost more
 * system time than they saved.
 */
const KEEPS_FREED_PAGES = purgingOff()

export function releaseGarbage(droppedBytes: number): void {
  if (!KEEPS_FREED_PAGES) releaseMemory(droppedBytes)
}

/**
 * A young-generation collection now: frees what was allocated since the last collection and is
 * already dead (a source file's text and parsed objects once its records are taken) without
 * marking everything older (the records read so far), so it costs what the file cost, not what
 * the build holds. A full collection instead costs the whole heap each time.
 */
export function collectYoung(): void {
  edenGC()
}

type Column = ArrayBufferView | { data: ArrayBufferView; offsets: ArrayBufferView } | { codes: ArrayBufferView } | undefined

/**
 * Frees the memory of columns that are no longer needed, now, by detaching their buffers
 * (ArrayBuffer#transfer(0)): the memory goes back at the next collection even if a stale
 * reference to the array survives somewhere (the collector scans the native stack
 * conservatively, so one can). Only for arrays that own their buffer alone: every view of it
 * becomes empty.
 */
export function dropColumns(...columns: Column[]): void {
  let bytes = 0
  const detach = (a: ArrayBufferView) => {
    const buffer = a.buffer as ArrayBuffer
    if (buffer.detached || buffer.byteLength === 0) return
    bytes += buffer.byteLength
    buffer.transfer(0)
  }
  for (const c of columns) {
    if (!c) continue
    if (ArrayBuffer.isView(c)) detach(c)
    else if ('offsets' in c) { detach(c.data); detach(c.offsets) }
    else detach(c.codes)
  }
  releaseMemory(bytes)
}
