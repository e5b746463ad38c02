/**
 * The `date_taken_mars` text form used by the MSL and M2020 feeds: "Sol-NNNNNMhh:mm:ss.fff"
 * (behaviour.md §18.1), and its time of day in ms (the `mars_time_ms` column).
 */

const TIME_AFTER_M = /M(\d{1,2}):(\d{2}):(\d{2})(?:\.(\d+))?/

/** "Sol-00731M16:16:40.653" for sol 731 and 58600653 ms. */
export function formatDateTakenMars(sol: number, timeMs: number): string {
  const ms = Math.floor(timeMs)
  const hh = Math.floor(ms / 3600000)
  const mm = Math.floor((ms % 3600000) / 60000)
  const ss = Math.floor((ms % 60000) / 1000)
  const f = ms % 1000
  return `Sol-${String(sol).padStart(5, '0')}M${p2(hh)}:${p2(mm)}:${p2(ss)}.${String(f).padStart(3, '0')}`
}

/**
 * Time of day in ms from the text after the first `M` (behaviour.md §18.1), or undefined when it does
 * not parse or is out of range. A fraction is read to the millisecond ("15:18:15" → 55095000).
 */
export function parseMarsTimeMs(text: string): number | undefined {
  const m = TIME_AFTER_M.exec(text)
  if (!m) return undefined
  const h = Number(m[1])
  const min = Number(m[2])
  const s = Number(m[3])
  if (h > 23 || min > 59 || s > 59) return undefined
  const frac = m[4] ? Math.floor(Number(`0.${m[4]}`) * 1000) : 0
  return ((h * 60 + min) * 60 + s) * 1000 + frac
}

/** The sol written in a "Sol-NNNNNM..." text, or undefined. */
export function solOfDateTakenMars(text: string): number | undefined {
  const m = /^Sol-(\d+)M/.exec(text)
  return m ? Number(m[1]) : undefined
}

function p2(n: number): string {
  return n < 10 ? `0${n}` : String(n)
}
