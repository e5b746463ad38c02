/**
 * An update's merge (index-builder/merge/) hands the derive stage a photo table whose rows are
 * mostly the published index's, unchanged. A value derived from a row's own facts and the
 * traverses alone (the sun, the position) or from its sol alone (the sequence id) is then the
 * published one for every kept row, as the full build of the same pages derives it; only the
 * new rows are derived. The stereo partner depends on the photos exposed near it: a kept row's
 * can change only within STEREO_REACH seconds of clock of a photo added or removed
 * (stereo-pairs.ts says why), so only those are paired again.
 */
export interface KeptRows {
  /** Per row, in the table's order: 1 for a row the update read (derived here), 0 for a published row kept as it was. */
  fresh: Uint8Array
  /** The clock (SCLK) of every photo the update added or removed, ascending (NaN left out). */
  changedSclk: Float64Array
}

/** Whether row `r` is derived here: every row of a build, only the new rows of a merge. */
export function derivesRow(kept: KeptRows | undefined, r: number): boolean {
  return kept === undefined || kept.fresh[r] === 1
}
