import type { ByteSink } from '../bytes/byte-sink'
import { IMAGE_SIZES } from '../params/photo-fields'

/** What comes before an image's `"<size>":"`: nothing, a comma, or the images object's start. */
export const LEAD = { none: 0, comma: 1, images: 2, commaImages: 3 } as const
const LEAD_TEXT = ['', ',', '"images":{', ',"images":{']

/**
 * The start of each image member of photo JSON, `"<size>":"<image_dir, escaped>` (the file name
 * and the closing quote follow) after its LEAD, per image size and image folder of a snapshot:
 * the first image of a photo opens the images object in the same copy. A snapshot may
 * hold tens of thousands of folders, so each text is made on first use, into one arena that
 * doubles when full: a row copies its prefix from the arena by two numbers in flat arrays, not
 * through an object per text. Bounded by the folder dictionary: at most one text per lead, size
 * and folder.
 */
export class ImagePrefixes {
  #bytes: Buffer
  #view: DataView
  #used = 0
  /** Start in the arena + 1 per (size, folder); 0 when not made yet. */
  readonly #at: Int32Array
  readonly #len: Int32Array

  constructor(readonly dirs: readonly (string | null | undefined)[]) {
    this.#at = new Int32Array(LEAD_TEXT.length * IMAGE_SIZES.length * dirs.length)
    this.#len = new Int32Array(LEAD_TEXT.length * IMAGE_SIZES.length * dirs.length)
    this.#bytes = Buffer.alloc(16 * 1024)
    this.#view = new DataView(this.#bytes.buffer, this.#bytes.byteOffset, this.#bytes.byteLength)
  }

  /** Copies the prefix of `lead` (LEAD), size index `size` (IMAGE_SIZES order) and folder code `dir` to the sink. */
  write(sink: ByteSink, lead: number, size: number, dir: number): void {
    const i = (lead * IMAGE_SIZES.length + size) * this.dirs.length + dir
    let a = this.#at[i] - 1
    if (a < 0) a = this.#make(lead, size, dir, i)
    sink.copyFrom(this.#bytes, this.#view, a, a + this.#len[i])
  }

  #make(lead: number, size: number, dir: number, i: number): number {
    const text = Buffer.from(LEAD_TEXT[lead] + '"' + IMAGE_SIZES[size] + '":' + JSON.stringify(this.dirs[dir] ?? '').slice(0, -1), 'utf8')
    if (this.#used + text.length > this.#bytes.length) {
      const next = Buffer.alloc(Math.max(2 * this.#bytes.length, this.#used + text.length))
      this.#bytes.copy(next, 0, 0, this.#used)
      this.#bytes = next
      this.#view = new DataView(next.buffer, next.byteOffset, next.byteLength)
    }
    const a = this.#used
    text.copy(this.#bytes, a)
    this.#used += text.length
    this.#at[i] = a + 1
    this.#len[i] = text.length
    return a
  }
}
