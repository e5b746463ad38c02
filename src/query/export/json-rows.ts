import type { Store } from '../../store/store'
import type { OutputSpec } from '../params/photo-fields'
import { writePhoto } from '../render/photo-json'
import type { ByteOut } from './byte-out'
import type { RowWriter } from './row-writer'

/**
 * NDJSON (and the JSON array fallback): each photo written by the photo list's own writer
 * (photo-json.ts writePhoto, from the snapshot's pre-encoded fragments), so an export and the
 * paged API agree byte for byte per photo. Every photo carries `relationships.rover` and
 * `relationships.camera` (as the list writes them with `include=rover,camera`), so each line
 * says which rover and camera took it, as the CSV and Arrow `rover` / `camera` columns do. `ndjson`: one photo per line (the last line ends
 * with "\n"); `json`: one array. A failure is a last line / element `{"error": {...problem}}`.
 */
export class JsonRows implements RowWriter {
  #first = true

  readonly out: OutputSpec

  constructor(readonly store: Store, out: OutputSpec, readonly lines: boolean) {
    this.out = { ...out, includeRover: true, includeCamera: true }
  }

  start(o: ByteOut): void {
    if (!this.lines) o.byte(0x5b)
  }

  end(o: ByteOut): void {
    if (!this.lines) o.byte(0x5d)
  }

  failure(detail: string): string {
    const problem = { type: '/errors/export-interrupted', title: 'Export Interrupted', status: 503, detail }
    return (this.lines ? '' : ',') + JSON.stringify({ error: problem }) + (this.lines ? '\n' : '')
  }

  rows(o: ByteOut, rows: Int32Array, n: number): void {
    const { store, out } = this
    if (this.lines) {
      for (let j = 0; j < n; j++) {
        writePhoto(o, store, rows[j]!, out)
        o.byte(0x0a)
      }
      return
    }
    for (let j = 0; j < n; j++) {
      if (!this.#first) o.byte(0x2c)
      this.#first = false
      writePhoto(o, store, rows[j]!, out)
    }
  }
}
