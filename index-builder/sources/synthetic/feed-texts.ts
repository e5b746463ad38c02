import type { CameraProfile } from './camera-profiles'

/**
 * Titles and captions from the raw feeds' templates (SOURCES.md §4.1, §4.2, §5), kept to a
 * modest number of distinct strings so their dictionaries stay small: titles name the sol and
 * the instrument, captions only the instrument (the feeds' per-photo date sentence is dropped).
 */
const ROVER_NAMES: Record<string, string> = { curiosity: 'Curiosity', perseverance: 'Perseverance', opportunity: 'Opportunity', spirit: 'Spirit' }

export function titleOf(p: CameraProfile, sol: number): string {
  if (p.family === 'm20') return `Mars Perseverance Sol ${sol}: ${p.long}`
  if (p.family === 'mer') return `${ROVER_NAMES[p.rover]} Sol ${sol}: ${p.long}`
  return `Sol ${sol}: ${p.long}`
}

export function captionOf(p: CameraProfile): string {
  if (p.family === 'm20') return `NASA's Mars Perseverance rover acquired this image using its ${p.long}.`
  if (p.family === 'mer') return `NASA's Mars Exploration Rover ${ROVER_NAMES[p.rover]} acquired this image using its ${p.long}.`
  return `This image was taken by ${p.long} onboard NASA's Mars rover Curiosity.`
}

/**
 * MER rover-motion-counter codes (SOURCES.md §4.5: two alphanumeric characters). 0-99 print as
 * decimals; then A0-Z9 (100-359), AA-ZZ (360-1035), 0A-9Z (1036-1295). Bijective on [0, 1296).
 */
export const MER_CODE_LIMIT = 1296
const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'
export function merCode(n: number): string {
  if (!Number.isInteger(n) || n < 0 || n >= MER_CODE_LIMIT) throw new Error(`MER motion counter ${n} out of range`)
  if (n < 100) return String(n).padStart(2, '0')
  if (n < 360) return LETTERS[Math.floor((n - 100) / 10)]! + String((n - 100) % 10)
  if (n < 1036) return LETTERS[Math.floor((n - 360) / 26)]! + LETTERS[(n - 360) % 26]!
  return String(Math.floor((n - 1036) / 26)) + LETTERS[(n - 1036) % 26]!
}
export function merCodeValue(code: string): number {
  const [a, b] = [code[0]!, code[1]!]
  const digit = (c: string) => c >= '0' && c <= '9'
  if (digit(a) && digit(b)) return Number(code)
  if (!digit(a) && digit(b)) return 100 + LETTERS.indexOf(a) * 10 + Number(b)
  if (!digit(a) && !digit(b)) return 360 + LETTERS.indexOf(a) * 26 + LETTERS.indexOf(b)
  return 1036 + Number(a) * 26 + LETTERS.indexOf(b)
}
