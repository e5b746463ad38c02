/**
 * What a filter contributes to a fused scan (fused-scan.ts): its row test as a small expression
 * template. A type of its own so that the filters (which produce terms) and the fused scan (which
 * compiles them and takes filters) both depend on it instead of on each other.
 */
export interface FusedTerm {
  /** Shape of the code (equal shapes compile to equal code). */
  shape: string
  /** What the code reads, passed in as arguments (columns, bounds). */
  args: unknown[]
  /** A boolean JS expression for row `r`, over the given argument names. */
  code(a: string[]): string
}
