/**
 * The photos of the three incoming real sources (SOURCES.md §2.11–2.13), enumerated straight from
 * the files with none of the builder's code: the trelliscope CSV split by hand, the Perseverance
 * feed array parsed as JSON, the Curiosity archive's `index` members listed by the system `tar`.
 * Tests compare the builder's records and the served counts against these.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'

export const INCOMING = join(import.meta.dir, '../../../shared/data/incoming')
export const TRELLISCOPE = join(INCOMING, 'trelliscope__trelliscope/mars_rover.csv')
export const RSS_FEED = join(INCOMING, 'mchapman87501__mars_perseverance_images/rss_feed.json.gz')
export const CURIOSITY_VO = join(INCOMING, 'padr31__curiosityvo/curiosityvo.tar.gz')

export interface IncomingPhoto {
  source: 'trelliscope' | 'rss_feed' | 'curiosityvo'
  rover: string
  sol: number
  camera: string
  url: string
  /** Stated size (trelliscope), else undefined. */
  width?: number
  height?: number
  id?: number
}

const FULL_NAME: Record<string, string> = { 'Mars Hand Lens Imager': 'MAHLI', 'Mast Camera': 'MAST' }

export function trelliscopePhotos(): IncomingPhoto[] {
  const lines = readFileSync(TRELLISCOPE, 'utf8').trim().split('\n')
  const header = lines[0]!.split(',').map((h) => h.replace(/"/g, ''))
  const at = (name: string) => header.indexOf(name)
  return lines.slice(1).map((line) => {
    // No field of this file holds a comma (checked: 11 fields on every line).
    const f = line.split(',').map((x) => x.replace(/^"|"$/g, ''))
    if (f.length !== header.length) throw new Error(`unexpected line ${line}`)
    return { source: 'trelliscope', rover: 'curiosity', sol: Number(f[at('sol')]), camera: FULL_NAME[f[at('camera')]!]!, url: f[at('img_src')]!, width: Number(f[at('width')]), height: Number(f[at('height')]), id: Number(f[at('id')]) }
  })
}

export function rssFeedRecords(): any[] {
  return JSON.parse(gunzipSync(readFileSync(RSS_FEED)).toString('utf8'))
}

export function rssFeedPhotos(): IncomingPhoto[] {
  return rssFeedRecords().map((r) => ({ source: 'rss_feed', rover: 'perseverance', sol: r.sol, camera: r.camera.instrument, url: r.image_files.large ?? r.image_files.full_res }))
}

/** `tar -xzOf … '*\/index'`: every index line of the archive. */
export function curiosityVoUrls(): string[] {
  const r = Bun.spawnSync(['tar', '-xzOf', CURIOSITY_VO, '--wildcards', '*/index'])
  if (r.exitCode !== 0) throw new Error(r.stderr.toString())
  return r.stdout.toString().split('\n').map((l) => l.trim()).filter((l) => l !== '')
}

export function curiosityVoPhotos(): IncomingPhoto[] {
  return [...new Set(curiosityVoUrls())].map((url) => ({ source: 'curiosityvo', rover: 'curiosity', sol: Number(/\/sol\/(\d{5})\//.exec(url)![1]), camera: 'NAVCAM', url }))
}

/** The PDS3 label members of the archive (names only), by `tar -tzf`. */
export function curiosityVoLabelNames(): string[] {
  const r = Bun.spawnSync(['tar', '-tzf', CURIOSITY_VO])
  return r.stdout.toString().split('\n').filter((n) => /\.LBL$/.test(n))
}

export function incomingPhotos(): IncomingPhoto[] {
  return [...trelliscopePhotos(), ...rssFeedPhotos(), ...curiosityVoPhotos()]
}
