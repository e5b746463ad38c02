/**
 * The hosts NASA serves the catalogue's image files from (the image_dir of every photo in the
 * bundled sources: mars.nasa.gov over https and http, mars.jpl.nasa.gov over http). The rover
 * page shows thumbnails only from these hosts, and its Content-Security-Policy allows images
 * from exactly these (both schemes: a browser upgrades an http image on an https page), so the
 * page loads nothing else remote. test/rover-page.test.ts checks every image URL of the index
 * against this list, so a source with another host shows up there first.
 */
export const NASA_IMAGE_HOSTS = ['mars.nasa.gov', 'mars.jpl.nasa.gov'] as const

export const NASA_IMAGE_SOURCES = NASA_IMAGE_HOSTS.flatMap((h) => [`https://${h}`, `http://${h}`]).join(' ')

/** True when `url` is an http(s) URL on one of NASA_IMAGE_HOSTS (a catalogue value is never trusted to be one). */
export function isNasaImageUrl(url: string): boolean {
  const m = /^https?:\/\/([^/?#:@\s]+)\//i.exec(url)
  return m !== null && (NASA_IMAGE_HOSTS as readonly string[]).includes(m[1]!.toLowerCase())
}
