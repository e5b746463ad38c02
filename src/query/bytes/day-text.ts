/** YYYY-MM-DD of a day number (days since 1970-01-01); parseDay in param-parsers.ts reads it back. */
export function formatDay(days: number): string {
  return new Date(days * 86_400_000).toISOString().slice(0, 10)
}

/**
 * YYYY-MM-DD of a day number (days since 1970-01-01), memoised: a catalogue spans a few
 * thousand distinct days, and Date formatting costs more than a map lookup.
 */
const memo = new Map<number, string>()

export function dayText(days: number): string {
  let s = memo.get(days)
  if (s === undefined) {
    s = formatDay(days)
    if (memo.size < 100_000) memo.set(days, s)
  }
  return s
}
