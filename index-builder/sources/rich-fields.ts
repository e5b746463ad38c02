import { parseNumber, parseTuple } from '../normalize/parse-tuple'

/**
 * Field readers shared by the rich formats (mru records, M2020 raw_images, MSL raw_image_items).
 */

/** Width and height from a "(w,h)" dimension, else from a subframe rectangle (x, y, w, h) divided by
 *  the scale factor (SOURCES.md §4.1: dimension wins; §4.2: subframe w,h scaled by scale_factor). */
export function dimensions(dimension: unknown, subframe: unknown, scale: unknown): { width?: number; height?: number } {
  const d = parseTuple(dimension, 2)
  if (d && d[0]! > 0 && d[1]! > 0 && Number.isInteger(d[0]) && Number.isInteger(d[1])) return { width: d[0], height: d[1] }
  const r = parseTuple(subframe, 4)
  if (!r) return {}
  const s = parseNumber(scale)
  const f = s !== undefined && s > 0 ? s : 1
  const w = Math.round(r[2]! / f)
  const h = Math.round(r[3]! / f)
  return w > 0 && h > 0 ? { width: w, height: h } : {}
}

export function xyz(value: unknown): [number, number, number] | undefined {
  const t = parseTuple(value, 3)
  return t ? [t[0]!, t[1]!, t[2]!] : undefined
}
