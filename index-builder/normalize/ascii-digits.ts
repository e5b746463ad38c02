/**
 * The decimal value of the ASCII digits [from, to) of `s`, or -1 when one of them is not a digit
 * (what `\d` matches there). Lets the readers of fixed-position texts (image ids, the feeds' UTC
 * times) take their numbers by character position instead of a regular expression per value.
 */
export function digitsAt(s: string, from: number, to: number): number {
  let v = 0
  for (let i = from; i < to; i++) {
    const d = s.charCodeAt(i) - 48
    if (d < 0 || d > 9) return -1
    v = v * 10 + d
  }
  return v
}
