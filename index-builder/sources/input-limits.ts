/**
 * Bounds on what one source file may cost the builder. Source files are untrusted input: a small
 * gzip can expand a thousandfold, a record can carry a 10 MB "URL", a JSON text can nest 100,000
 * levels. Every bound fails with a SourceError naming the file and the limit, never with a crash
 * or an out-of-memory kill. The largest real file expands to 2.6 MB; the defaults leave two
 * orders of magnitude; a larger trusted dump is read by raising the bound for that build. At the
 * bound a build peaks near 0.6 GB (compressed + decompressed bytes + the decoded text), under 1 GB.
 */

/** Decompressed bytes one source file may expand to (all members of an archive together). */
export const DEFAULT_MAX_FILE_BYTES = 128 * 2 ** 20

/** Overridable for one build (BUILD_MAX_FILE_BYTES) so a larger trusted dump can be read. */
export function maxFileBytes(): number {
  const env = process.env.BUILD_MAX_FILE_BYTES
  const n = env === undefined ? NaN : Number(env)
  return Number.isInteger(n) && n > 0 ? n : DEFAULT_MAX_FILE_BYTES
}

/** Deepest JSON nesting accepted (real feeds nest 4 levels; v1 records 3). */
export const MAX_JSON_DEPTH = 64

/** Longest JSON string literal accepted (the longest real one, a caption, is under 1,000). */
export const MAX_JSON_STRING = 64 * 1024

/** Longest value of each kind kept from a record (characters). */
export const MAX_CHARS = {
  url: 2048,
  nasa_id: 96,
  camera: 64,
  short: 128, // sample type, date_taken_mars, credit
  title: 512,
  caption: 4096,
  raw: 64 * 1024, // the source record kept for field_set=complete
} as const

/** Largest PDS3 label accepted (real EDR labels are about 25 KB). */
export const MAX_LABEL_BYTES = 1024 * 1024

/** Printable form of a file name or value for a terminal: control and bidi characters escaped. */
export function printable(s: string): string {
  return s.replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g, (c) => {
    const code = c.charCodeAt(0)
    return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`
  })
}
