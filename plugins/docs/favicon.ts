/**
 * GET /favicon.ico: the service's icon, so a browser's automatic request gets an image instead
 * of an error. A 32×32 ICO (one 32-bit BMP image with alpha, the form every browser reads),
 * drawn here once: a rust-red planet with a darker band, on a transparent ground. No file to ship.
 */
const SIZE = 32

export function favicon(): Uint8Array {
  const pixels = SIZE * SIZE * 4
  const mask = SIZE * 4 // one bit per pixel, rows padded to 32 bits: 4 bytes a row
  const out = new Uint8Array(6 + 16 + 40 + pixels + mask)
  const v = new DataView(out.buffer)
  // ICONDIR: reserved, type 1 (icon), one image
  v.setUint16(0, 0, true)
  v.setUint16(2, 1, true)
  v.setUint16(4, 1, true)
  // ICONDIRENTRY: width, height, no palette, planes 1, 32 bits a pixel, size, offset
  out[6] = SIZE
  out[7] = SIZE
  v.setUint16(10, 1, true)
  v.setUint16(12, 32, true)
  v.setUint32(14, 40 + pixels + mask, true)
  v.setUint32(18, 22, true)
  // BITMAPINFOHEADER: the height counts the colour rows and the AND mask's rows
  v.setUint32(22, 40, true)
  v.setInt32(26, SIZE, true)
  v.setInt32(30, SIZE * 2, true)
  v.setUint16(34, 1, true)
  v.setUint16(36, 32, true)
  v.setUint32(42, pixels + mask, true)
  // BGRA rows, bottom-up; the AND mask stays zero (the alpha channel decides)
  const c = (SIZE - 1) / 2
  for (let y = 0; y < SIZE; y++) {
    for (let x = 0; x < SIZE; x++) {
      const dx = x - c
      const dy = c - y
      const d = Math.hypot(dx, dy)
      const alpha = Math.max(0, Math.min(1, 14.5 - d)) // a soft edge one pixel wide
      if (alpha === 0) continue
      const band = Math.abs(dy + dx * 0.35 - 3) < 2.2
      const light = Math.max(0, -dx - dy) / 16 // lit from the top left
      const [r, g, b] = band ? [120, 40, 18] : [Math.min(255, 188 + light * 50), Math.min(255, 72 + light * 40), 30]
      const at = 62 + ((SIZE - 1 - y) * SIZE + x) * 4
      out[at] = b
      out[at + 1] = g
      out[at + 2] = r
      out[at + 3] = Math.round(alpha * 255)
    }
  }
  return out
}
