import type { DictColumn } from '../../store/schema'

/**
 * The UTF-8 bytes (and text) of each image folder (the `image_dir` dictionary), encoded once per
 * folder, so an image URL is written as folder + file name without decoding the file name.
 */
export class ImageBytes {
  readonly #bytes: Array<Buffer | undefined>
  constructor(readonly col: DictColumn) {
    this.#bytes = new Array(col.dict.length)
  }
  dir(row: number): Uint8Array {
    return this.dirBuffer(row)
  }
  dirBuffer(row: number): Buffer {
    const code = this.col.codes[row]!
    return (this.#bytes[code] ??= Buffer.from(this.col.dict[code] ?? '', 'utf8'))
  }
}
