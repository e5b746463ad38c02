import { closeSync, openSync, readSync } from 'node:fs'
import { open } from 'node:fs/promises'
import { RecordBatchReader, Table } from 'apache-arrow'
import { columnsFromTable } from './arrow-columns'
import type { ColumnLayout } from './column-layout'
import { IndexLoadError } from './index-load-error'
import type { DictColumn, Utf8Column } from './schema'

/**
 * Bun (JavaScriptCore) caps one ArrayBuffer at 4 GiB, so an Arrow file larger than that (the
 * photos.arrow of ~16M photos and more) can be neither read nor mapped whole. The builder
 * writes such a file as record batches of ~1 GiB (index-builder/encode/arrow-table.ts,
 * batchedIfHuge); it is read here one batch at a time and each batch's columns are copied into
 * one typed array per column (each well under 4 GiB), so the store sees the same single
 * arrays as for a small index. Memory: the columns plus one batch.
 */
export const ONE_BUFFER_LIMIT = 2 ** 32

/** Bytes per part of a file's `xxh3_parts` checksums (manifest.json). */
export const CHECKSUM_PART = 2 ** 30

export async function loadBatchedTable(path: string, layout: ColumnLayout, rows: number): Promise<Record<string, unknown>> {
  const handle = await open(path, 'r')
  try {
    const reader = await RecordBatchReader.from(handle)
    await reader.open()
    const utf8Bytes = JSON.parse(reader.schema.metadata.get('utf8_bytes') ?? '{}') as Record<string, number>
    let out: Record<string, unknown> | undefined
    const textAt: Record<string, number> = {}
    let at = 0
    for await (const batch of reader) {
      if (at + batch.numRows > rows) throw new IndexLoadError(path, `holds more than the ${rows} rows the manifest says`)
      const part = columnsFromTable(path, new Table([batch]), layout, batch.numRows)
      out ??= allocate(path, layout, rows, utf8Bytes, part)
      for (const [name, kind] of layout) {
        const from = part[name] as never
        const into = out[name] as never
        if (kind === 'utf8') textAt[name] = appendUtf8(path, name, into, from, at, textAt[name] ?? 0)
        else if (kind === 'dict' || kind === 'dict16') appendDict(path, name, into, from, at)
        else (into as Int32Array).set(from as Int32Array, at)
      }
      at += batch.numRows
    }
    if (!out || at !== rows) throw new IndexLoadError(path, `holds ${at} rows, the manifest says ${rows}`)
    return out
  } catch (e) {
    if (e instanceof IndexLoadError) throw e
    throw new IndexLoadError(path, `is not a readable Arrow IPC file (${(e as Error).message})`)
  } finally {
    await handle.close()
  }
}

function allocate(path: string, layout: ColumnLayout, rows: number, utf8Bytes: Record<string, number>, first: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { length: rows }
  for (const [name, kind] of layout) {
    const c = first[name] as any
    if (kind === 'utf8') {
      const bytes = utf8Bytes[name]
      if (!Number.isInteger(bytes) || bytes! < 0 || bytes! > 0x7fffffff) throw new IndexLoadError(path, `column "${name}": no valid utf8_bytes in the schema metadata`)
      out[name] = { data: new Uint8Array(bytes!), offsets: new Int32Array(rows + 1) } satisfies Utf8Column
    } else if (kind === 'dict' || kind === 'dict16') {
      out[name] = { codes: new (c.codes.constructor as Int32ArrayConstructor)(rows), dict: c.dict } satisfies DictColumn
    } else {
      out[name] = new (c.constructor as Int32ArrayConstructor)(rows)
    }
  }
  return out
}

function appendUtf8(path: string, name: string, into: Utf8Column, from: Utf8Column, at: number, dataAt: number): number {
  const n = from.offsets.length - 1
  const bytes = from.offsets[n]! - from.offsets[0]!
  if (dataAt + bytes > into.data.length) throw new IndexLoadError(path, `column "${name}" holds more bytes than its utf8_bytes`)
  into.data.set(from.data.subarray(from.offsets[0]!, from.offsets[n]!), dataAt)
  const shift = dataAt - from.offsets[0]!
  for (let i = 1; i <= n; i++) into.offsets[at + i] = from.offsets[i]! + shift
  return dataAt + bytes
}

function appendDict(path: string, name: string, into: DictColumn, from: DictColumn, at: number): void {
  if (from.dict.length !== into.dict.length || from.dict.some((v, i) => v !== into.dict[i])) throw new IndexLoadError(path, `column "${name}" changes its dictionary between record batches`)
  if (from.codes.constructor !== into.codes.constructor) throw new IndexLoadError(path, `column "${name}" changes its code type between record batches`)
  ;(into.codes as Int32Array).set(from.codes as Int32Array, at)
}

/** XXH3-64 of each CHECKSUM_PART bytes of a file, read part by part (never the whole file at once). */
export function partChecksums(path: string, onPart?: (part: Uint8Array) => void): string[] {
  const buf = new Uint8Array(CHECKSUM_PART)
  const out: string[] = []
  const fd = openSync(path, 'r')
  try {
    for (let pos = 0; ; ) {
      let n = 0
      while (n < buf.length) {
        const got = readSync(fd, buf, n, buf.length - n, pos + n)
        if (got <= 0) break
        n += got
      }
      if (n === 0) break
      const part = buf.subarray(0, n)
      out.push(Bun.hash.xxHash3(part).toString(16).padStart(16, '0'))
      onPart?.(part)
      pos += n
      if (n < buf.length) break
    }
  } finally {
    closeSync(fd)
  }
  return out
}
