import type { RawRef } from '../normalize/photo-record'
import { detectFormat } from './detect-format'
import { openFile } from './open-file'
import { SourceError } from './source-error'

/**
 * A feed record's raw JSON, not held but pointed at: the page file it was read from and its place
 * in the page's list. The raw JSON is the largest part of a feed record read into memory (~2 KB of
 * ~5 KB, measured on the stand-in feed), and the builder needs it only once, when the photo table
 * is written: a big build keeps this reference instead (ReadOptions.rawByRef) and reads the page
 * again then (RawRereader), one page after another, as the records come in page order.
 * `length` and `crc` are those of the text first read, so a page changed in between (a fetch run
 * replacing the sol meanwhile) fails the build instead of serving another record's JSON.
 */
export type { RawRef }

export function rawRefTo(file: string, display: string, item: number, raw: string): RawRef {
  return { file, display, item, length: raw.length, crc: Bun.hash.crc32(raw) }
}

/** The page formats whose records can be pointed at: a list of records, one record per item. */
export const REREADABLE_FORMATS: ReadonlySet<string> = new Set(['m2020-raw-images', 'msl-raw-image-items'])

/** Reads raw JSON again from the pages, keeping the last few pages' lists parsed. */
export class RawRereader {
  readonly #pages = new Map<string, unknown[]>()

  text(ref: RawRef): string {
    let list = this.#pages.get(ref.file)
    if (!list) {
      list = readList(ref)
      if (this.#pages.size >= 4) this.#pages.delete(this.#pages.keys().next().value!)
      this.#pages.set(ref.file, list)
    }
    // The same text the reader first made: JSON.stringify of the same item of the same parsed page.
    const raw = JSON.stringify(list[ref.item])
    if (raw === undefined || raw.length !== ref.length || Bun.hash.crc32(raw) !== ref.crc) {
      throw new SourceError(ref.display, `record ${ref.item}`, 'the page changed while the index was built (a fetch replaced it): build again')
    }
    return raw
  }
}

function readList(ref: RawRef): unknown[] {
  const entries = openFile(ref.file, ref.display)
  const d = entries.length === 1 && entries[0]!.member === undefined ? detectFormat(ref.display, entries[0]!.text) : undefined
  if (d?.format === 'm2020-raw-images') return (d.doc as { images: unknown[] }).images
  if (d?.format === 'msl-raw-image-items') return (d.doc as { items: unknown[] }).items
  throw new SourceError(ref.display, 'file', 'the page changed while the index was built (a fetch replaced it): build again')
}
