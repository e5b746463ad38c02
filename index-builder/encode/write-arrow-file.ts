import { tableToIPC, type Table } from 'apache-arrow'
import { closeSync, fsyncSync, openSync, writeSync } from 'node:fs'

/**
 * Writes a table as one Arrow IPC file (the random-access "file" format: footer included) and
 * fsyncs it, so the bytes are on disk before the version folder is renamed into place.
 * Returns the byte size.
 */
export function writeArrowFile(path: string, table: Table): number {
  const bytes = tableToIPC(table, 'file')
  writeDurably(path, bytes)
  return bytes.length
}

export function writeDurably(path: string, bytes: Uint8Array): void {
  const fd = openSync(path, 'w', 0o644)
  try {
    for (let off = 0; off < bytes.length; ) off += writeSync(fd, bytes, off, Math.min(1 << 26, bytes.length - off))
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
