/**
 * How much of a key's budget one instance asks Redis for at a time. Pure arithmetic.
 *
 * A larger block means fewer round trips; a smaller one means less budget sitting unused on one
 * instance while another is refused (the under-admission the leased store accepts, documented in
 * docs/scale-out.md). The block is a sixteenth of what is left of the tighter window, so it
 * shrinks as the budget runs out and the last units are leased one at a time: no instance ever
 * holds much of a nearly spent budget.
 */
export const MAX_UNIT_BLOCK = 1024
const UNIT_SHARE = 16
/** Spare in-flight slots taken beside the ones a burst needs now: an eighth of the limit, at most 8. */
const SLOT_SHARE = 8
const MAX_SPARE_SLOTS = 8

/** Units to ask for: what the waiting calls need, and at least one block. */
export function unitBlock(remaining: number, waiting: number): number {
  const block = Math.max(1, Math.min(MAX_UNIT_BLOCK, Math.floor(Math.max(0, remaining) / UNIT_SHARE)))
  return Math.max(block, waiting)
}

/** Spare slots to ask for beside the needed ones. */
export function spareSlots(concurrent: number): number {
  return Math.min(MAX_SPARE_SLOTS, Math.floor(concurrent / SLOT_SHARE))
}

/**
 * Below this many leased units the next block is fetched in the background: half a block leaves
 * the round trip half a block's worth of calls to come back in, so a busy key never waits.
 */
export function lowWater(block: number): number {
  return Math.floor(block / 2)
}
