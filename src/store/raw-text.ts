import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { IndexLoadError } from './index-load-error'
import { FILES, RAW_FILES, type LargeUtf8Column, type Manifest, type TextColumn } from './schema'

/**
 * The photos' raw JSON of an index that keeps it in raw.bin (index-builder/encode/raw-file.ts):
 * photos.arrow's `raw` column is then all "", raw-ends.arrow says where each photo's text in
 * raw.bin ends, and raw.bin is mapped (the page cache's pages, not a copy on the heap: a big
 * catalogue's raw JSON is GBs that only `complete` answers read). Both files are listed in
 * manifest.json and checked with the others (size, then XXH3 or SHA-256 as INDEX_VERIFY says)
 * before this runs; here the structure is checked: the ends rise from 0 to raw.bin's size, one
 * per photo, and photos.arrow holds no raw JSON of its own.
 */
export function rawTextColumn(dir: string, manifest: Manifest, inline: TextColumn, ends: Float64Array | undefined): TextColumn {
  const text = manifest.files[RAW_FILES.text]
  const endsEntry = manifest.files[RAW_FILES.ends]
  if (!text && !endsEntry) return inline
  const textPath = join(dir, RAW_FILES.text)
  if (!text || !endsEntry) throw new IndexLoadError(join(dir, manifest.files[RAW_FILES.text] ? RAW_FILES.ends : RAW_FILES.text), `is missing from manifest.json while ${text ? RAW_FILES.text : RAW_FILES.ends} is listed`)
  if (inline.data.length > 0) throw new IndexLoadError(join(dir, FILES.photos), `holds raw JSON while ${RAW_FILES.text} holds it too`)
  const endsPath = join(dir, RAW_FILES.ends)
  const rows = manifest.rows.photos
  if (!ends || ends.length !== rows) throw new IndexLoadError(endsPath, `holds ${ends?.length ?? 0} rows, manifest.json says ${rows} photos`)
  const offsets = new Float64Array(rows + 1)
  let prev = 0
  for (let row = 0; row < rows; row++) {
    const end = ends[row]!
    if (!Number.isInteger(end) || end < prev) throw new IndexLoadError(endsPath, `raw_end of row ${row} is ${end}, not a byte count at or past the row before's ${prev}`)
    offsets[row + 1] = prev = end
  }
  if (prev !== text.bytes) throw new IndexLoadError(endsPath, `ends at byte ${prev}, ${RAW_FILES.text} is ${text.bytes} bytes`)
  return { data: mapped(textPath, text.bytes), offsets } satisfies LargeUtf8Column
}

function mapped(path: string, bytes: number): Uint8Array {
  if (bytes === 0) return new Uint8Array(0)
  if (typeof Bun !== 'undefined' && typeof Bun.mmap === 'function' && process.env.INDEX_MMAP !== '0') {
    const m = Bun.mmap(path, { shared: false })
    if (m.length !== bytes) throw new IndexLoadError(path, `is ${m.length} bytes, manifest.json says ${bytes}: truncated or replaced`)
    return m
  }
  return new Uint8Array(readFileSync(path))
}
