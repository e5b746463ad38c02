import { DataType } from 'apache-arrow'
import { utf8Strings } from './arrow-columns'

/**
 * Two facts about Arrow IPC record batches (Arrow columnar format, "Buffer listing for each
 * layout") that BatchStream decodes without apache-arrow's readers: how many field nodes and
 * buffers a column spans, and the strings of a Dictionary<Utf8> batch. Both return a problem
 * string instead of throwing, so the caller names the file.
 */

/** Field nodes and buffers a field of this type spans in a record batch, or undefined. */
export function fieldSpan(type: DataType): [nodes: number, buffers: number] | undefined {
  if (DataType.isDictionary(type)) return [1, 2]
  if (DataType.isUtf8(type) || DataType.isBinary(type)) return [1, 3]
  if (DataType.isInt(type) || DataType.isFloat(type) || DataType.isDate(type) || DataType.isBool(type) || DataType.isTimestamp(type)) return [1, 2]
  if (DataType.isList(type) || DataType.isStruct(type)) {
    let n = 1
    let b = DataType.isList(type) ? 2 : 1
    for (const c of type.children) {
      const span = fieldSpan(c.type)
      if (!span) return undefined
      n += span[0]
      b += span[1]
    }
    return [n, b]
  }
  return undefined
}

interface BatchHeader {
  length: number
  buffers: ReadonlyArray<{ offset: number | bigint; length: number | bigint }>
}

/** The values of a dictionary batch of one Utf8 column (validity, offsets, bytes), or a problem. */
export function dictionaryBatchStrings(header: BatchHeader, body: Uint8Array): string[] | string {
  const n = Number(header.length)
  const [, offsetsAt, bytesAt] = header.buffers.map((b) => ({ offset: Number(b.offset), length: Number(b.length) }))
  if (!Number.isSafeInteger(n) || n < 0 || !offsetsAt || !bytesAt) return 'has no Utf8 buffers'
  if (offsetsAt.offset % 4 !== 0 || offsetsAt.length < (n + 1) * 4 || offsetsAt.offset + (n + 1) * 4 > body.length || bytesAt.offset + bytesAt.length > body.length)
    return 'has buffers outside its body'
  const offsets = new Int32Array(body.buffer, body.byteOffset + offsetsAt.offset, n + 1)
  const bytes = body.subarray(bytesAt.offset, bytesAt.offset + bytesAt.length)
  for (let i = 0; i < n; i++) if (offsets[i]! > offsets[i + 1]!) return 'has decreasing offsets'
  if (offsets[0] !== 0 || offsets[n]! > bytes.length) return 'offsets point outside its data'
  return utf8Strings({ data: bytes, offsets }, n)
}
