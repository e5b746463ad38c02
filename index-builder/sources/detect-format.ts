import { parseTable, type Table } from './delimited-text'
import { isFeatureCollection, isLineLayer } from './mmgis-layer'
import { isMerRmcTable, isMerTraverseTable } from './mer-location-table'
import { isMerTimetable } from './mer-timetable'
import { SourceError } from './source-error'

/**
 * Which reader a file needs, from its content (the file name only decides whether text that is not
 * JSON should be tried as a table). Returns the parsed JSON document or table with the format name
 * (the `format` of ManifestSource, src/store/schema.ts).
 */
export type Detected =
  | { format: 'v1-json' | 'manifest' | 'm2020-raw-images' | 'msl-raw-image-items' | 'mru-record' | 'waypoints' | 'traverse'; doc: unknown }
  | { format: 'v1-csv' | 'mer-rmc-table' | 'mer-traverse-table' | 'mer-timetable'; table: Table }
  | { format: 'unknown'; why: string }

const has = (o: unknown, k: string) => !!o && typeof o === 'object' && k in (o as object)
const isArrayOf = (o: unknown, k: string) => has(o, k) && Array.isArray((o as Record<string, unknown>)[k])

export function detectFormat(name: string, text: string): Detected {
  const head = text.trimStart()[0]
  if (head === '{' || head === '[' || /\.(geo)?json$/i.test(name.replace(/\.gz$/i, ''))) {
    let doc: unknown
    try {
      doc = JSON.parse(text)
    } catch (e) {
      throw new SourceError(name, 'file', `malformed JSON (${(e as Error).message})`)
    }
    return detectJson(doc)
  }
  const table = parseTable(text)
  const h = table.header.map((x) => x.toLowerCase())
  if (h.includes('img_src') && (h.includes('camera_name') || h.includes('camera'))) return { format: 'v1-csv', table }
  if (isMerRmcTable(table)) return { format: 'mer-rmc-table', table }
  if (isMerTraverseTable(table)) return { format: 'mer-traverse-table', table }
  if (isMerTimetable(table)) return { format: 'mer-timetable', table }
  return { format: 'unknown', why: `unrecognised table header "${table.header.slice(0, 6).join(',')}"` }
}

function detectJson(doc: unknown): Detected {
  if (Array.isArray(doc)) {
    if (doc.length === 0 || has(doc[0], 'img_src')) return { format: 'v1-json', doc }
    return { format: 'unknown', why: 'a JSON array whose items have no img_src' }
  }
  if (!doc || typeof doc !== 'object') return { format: 'unknown', why: 'JSON that is not an object or array' }
  if (has(doc, 'photo_manifest')) return { format: 'manifest', doc }
  if (isArrayOf(doc, 'photos')) return { format: 'v1-json', doc }
  if (isArrayOf(doc, 'images')) return { format: 'm2020-raw-images', doc }
  if (isArrayOf(doc, 'items')) return { format: 'msl-raw-image-items', doc }
  if (has(doc, 'imageid') && has(doc, 'link')) return { format: 'mru-record', doc }
  if (isFeatureCollection(doc)) return { format: isLineLayer(doc) ? 'traverse' : 'waypoints', doc }
  return { format: 'unknown', why: `JSON object with keys ${Object.keys(doc).slice(0, 6).join(', ')}` }
}
