import type { DictColumn } from '../../store/schema'

/**
 * The UTF-8 bytes (and text) of each image folder (the `image_dir` dictionary), encoded once per
 * folder, so an image URL is written as folder + file name without decoding the file name.
 */
export class ImageBytes {
  readonly #bytes: Array<Uint8Array | undefined>
  readonly #encoder = new TextEncoder()
  constructor(readonly col: DictColumn) {
    this.#bytes = new Array(col.dict.length)
  }
  dir(row: number): Uint8Array {
    const code = this.col.codes[row]!
    return (this.#bytes[code] ??= this.#encoder.encode(this.col.dict[code] ?? ''))
  }
}
