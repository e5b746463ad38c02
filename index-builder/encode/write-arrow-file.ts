import type { Table } from 'apache-arrow'
import { closeSync, fsyncSync, openSync } from 'node:fs'
import { StagedFile, writeAll, type StagingWrites } from './staging-writes'

/**
 * Writes a table as one Arrow IPC file (the random-access "file" format: footer included, the
 * same bytes as tableToIPC(table, 'file')) and fsyncs it, so the bytes are on disk before the
 * version folder is renamed into place. The writer's chunks are views of the columns' own
 * buffers plus small headers and padding, written one by one: the file is never assembled in
 * memory (a 19M-photo table is ~5 GB). With `digests`, the file's manifest digest is taken from
 * the bytes as they are written (staging-writes.ts). Returns the byte size.
 */
export async function writeArrowFile(path: string, table: Table, substitutes: readonly Substitute[] = [], digests?: StagingWrites): Promise<number> {
  // Loaded here, not at the top: this module's fsyncDir and writeDurably serve code that never
  // writes Arrow (publish.ts, and through it `npm run update`'s start, which would pay ~0.15 s).
  const { RecordBatchFileWriter } = await import('apache-arrow')
  const writer = RecordBatchFileWriter.writeAll(table)
  const file = new StagedFile(path, digests)
  let size = 0
  try {
    for await (const chunk of writer) {
      const substitute = chunk.byteLength > 0 ? substitutes.find((s) => s.buffer === chunk.buffer) : undefined
      if (substitute) {
        let got = 0
        substitute.write((bytes) => {
          file.put(bytes)
          got += bytes.length
        })
        if (chunk.byteOffset !== 0 || got !== chunk.byteLength || got !== substitute.buffer.byteLength) throw new Error(`${path}: the substituted column wrote ${got} bytes for a chunk of ${chunk.byteLength} at ${chunk.byteOffset} of its buffer's ${substitute.buffer.byteLength}`)
      } else file.put(chunk)
      size += chunk.byteLength
    }
    // With digests, synced and closed on a worker thread; the build waits for it before its manifest.
    file.end()
  } finally {
    file.abandon()
  }
  return size
}

/**
 * A column buffer that is a placeholder (never filled): the writer's view of it is replaced by
 * the bytes `write` hands over (an update's merged text columns: merge/merged-raw.ts).
 */
export interface Substitute {
  buffer: ArrayBufferLike
  write(put: (bytes: Uint8Array) => void): void
}


export function writeDurably(path: string, bytes: Uint8Array): void {
  const fd = openSync(path, 'w', 0o644)
  try {
    writeAll(fd, bytes)
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}

/** fsync a folder, so renames and new entries in it are durable. */
export function fsyncDir(path: string): void {
  const fd = openSync(path, 'r')
  try {
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}
