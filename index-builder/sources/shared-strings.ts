import type { PhotoRecord } from '../normalize/photo-record'

/**
 * One copy of each repeated text among a build's records. Each parsed record brings its own
 * copy of its title, caption and credit, yet a feed repeats them across thousands of photos (in
 * 75,000 stand-in records: 705 distinct titles, 12,934 distinct captions, a handful of credits and
 * sample types), and every record is held from the read to the photo table: sharing them cut
 * ~0.4 GB of strings at 1.5 million records. The strings are equal, so the index is the same.
 * One per build (read-sources.ts): the map goes with the read.
 */
export class SharedStrings {
  private readonly seen = new Map<string, string>()

  /** The first string equal to `s` that this build met, else `s` (kept as that first one). */
  share(s: string): string {
    const had = this.seen.get(s)
    if (had !== undefined) return had
    this.seen.set(s, s)
    return s
  }

  /** Replaces the record's repeated texts by the build's shared copies, in place. */
  shareRecord(rec: PhotoRecord): void {
    rec.camera = this.share(rec.camera)
    if (rec.sample_type !== undefined) rec.sample_type = this.share(rec.sample_type)
    if (rec.title !== undefined) rec.title = this.share(rec.title)
    if (rec.caption !== undefined) rec.caption = this.share(rec.caption)
    if (rec.credit !== undefined) rec.credit = this.share(rec.credit)
  }

  /** How many distinct texts are shared. */
  get size(): number {
    return this.seen.size
  }
}
