/**
 * The index at INDEX_DIR cannot be served: missing, truncated, corrupt, or not the layout of
 * src/store/schema.ts. The message names the file and the reason; the server prints it and
 * refuses to start (or keeps the snapshot it has, on a reload).
 */
export class IndexLoadError extends Error {
  override readonly name = 'IndexLoadError'
  constructor(
    /** Path of the offending file or folder. */
    readonly file: string,
    readonly reason: string,
  ) {
    super(`index not loadable: ${file}: ${reason}`)
  }
}
