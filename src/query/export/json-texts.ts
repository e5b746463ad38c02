import { A, SIZE } from '../photo-fields'
import { Constants } from './fragments'

/**
 * The constant texts of the photo JSON (json-rows.ts): member names, each also with the comma
 * that separates it from a member before it, and how dictionary members are encoded. They are
 * written from the output's atlas (ByteOut#frag); C.* index them.
 */
export const TEXTS = {
  open: '{"id":',
  type: ',"type":"photo","attributes":{',
  small: '"small":"',
  medium: '"medium":"',
  large: '"large":"',
  full: '"full":"',
  height: ',"height":',
  drive: ',"drive":',
  coordinates: ',"coordinates":{"x":',
  y: ',"y":',
  z: ',"z":',
  elevation: ',"mast_elevation":',
  relationships: ',"relationships":{',
  rover: '"rover":',
  camera: '"camera":',
  ...members({
    nasaId: '"nasa_id":"',
    sol: '"sol":',
    earthDate: '"earth_date":"',
    dateUtc: '"date_taken_utc":"',
    dateMars: '"date_taken_mars":"',
    images: '"images":{',
    width: '"dimensions":{"width":',
    heightOnly: '"dimensions":{"height":',
    site: '"location":{"site":',
    driveOnly: '"location":{"drive":',
    coordinatesOnly: '"location":{"coordinates":{"x":',
    azimuth: '"telemetry":{"mast_azimuth":',
    elevationOnly: '"telemetry":{"mast_elevation":',
    raw: '"raw":',
  }),
}
export const NAMES = Object.keys(TEXTS)
export const C = Object.fromEntries(NAMES.map((k, i) => [k, i])) as Record<string, number>
export const CONSTANTS = new Constants<string>(TEXTS)

/**
 * The name of each attribute member, and right after it the same with the comma that separates
 * it from a member before it (`,"sol":`): one copy per member, whichever comes first.
 */
function members<T extends Record<string, string>>(texts: T): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(texts)) {
    out[k] = v
    out[k + ','] = ',' + v
  }
  return out
}
export const SIZE_TEXTS = [C.small, C.medium, C.large, C.full]
export const SIZE_BITS = [SIZE.small, SIZE.medium, SIZE.large, SIZE.full]

export const DICT_NAMES = ['sample_type', 'title', 'caption', 'credit']
export const DICT_BITS = [A.sample_type, A.title, A.caption, A.credit]
export const dictMember = (name: string, comma: string) => (v: string) => (v === '' ? '' : comma + '"' + name + '":' + JSON.stringify(v))
