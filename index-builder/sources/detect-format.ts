import { parseTable, TableError, type Table } from './delimited-text'
import { MAX_JSON_DEPTH, MAX_JSON_STRING } from './input-limits'
import { isCameraUrlLists } from './camera-url-lists'
import { isFeatureCollection, isLineLayer } from './mmgis-layer'
import { isMerRmcTable, isMerTraverseTable } from './mer-location-table'
import { isMerTimetable } from './mer-timetable'
import { isIndexTableLabel } from './pds3/index-table-label'
import { SourceError } from './source-error'

/**
 * Which reader a file needs, from its content (the file name only decides whether text that is not
 * JSON should be tried as a table). Returns the parsed JSON document or table with the format name
 * (the `format` of ManifestSource, src/store/schema.ts).
 */
export type Detected =
  | { format: 'v1-json' | 'v1-pics' | 'camera-url-lists' | 'manifest' | 'm2020-raw-images' | 'msl-raw-image-items' | 'mru-record' | 'waypoints' | 'traverse'; doc: unknown }
  | { format: 'v1-csv' | 'mer-rmc-table' | 'mer-traverse-table' | 'mer-timetable'; table: Table }
  | { format: 'pds3-label' | 'pds3-index-table' | 'url-index'; text: string }
  | { format: 'unknown'; why: string }

const has = (o: unknown, k: string) => !!o && typeof o === 'object' && k in (o as object)
const isArrayOf = (o: unknown, k: string) => has(o, k) && Array.isArray((o as Record<string, unknown>)[k])

export function detectFormat(name: string, text: string): Detected {
  const base = name.slice(name.lastIndexOf('/') + 1)
  // A PDS3 label by name or by its first statement; one that declares an INDEX_TABLE describes a
  // table of many products (pds3/mer-edr-index.ts), any other one product (pds3/curiosity-vo.ts).
  const lead = leadingText(text)
  if (/\.lbl$/i.test(base) || /^PDS_VERSION_ID[ \t]*=/.test(lead)) {
    return { format: isIndexTableLabel(text) ? 'pds3-index-table' : 'pds3-label', text }
  }
  if (/\.tab(\.gz)?$/i.test(base)) return { format: 'unknown', why: 'a PDS3 table is read through its label: give the .lbl beside it, or their folder' }
  if (base === 'index' && /^https?:\/\/\S+$/m.test(text.slice(0, 4096))) return { format: 'url-index', text }
  const head = lead[0]
  if (head === '{' || head === '[' || /\.(geo)?json$/i.test(name.replace(/\.gz$/i, ''))) {
    const shape = jsonShape(text)
    if (shape.depth > MAX_JSON_DEPTH) throw new SourceError(name, 'file', `JSON nested deeper than ${MAX_JSON_DEPTH} levels`)
    if (shape.longestString > MAX_JSON_STRING) throw new SourceError(name, 'file', `holds a JSON string of ${shape.longestString} characters (at most ${MAX_JSON_STRING})`)
    let doc: unknown
    try {
      doc = JSON.parse(text)
    } catch (e) {
      throw new SourceError(name, 'file', `malformed JSON (${(e as Error).message})`)
    }
    return detectJson(doc)
  }
  let table: Table
  try {
    table = parseTable(text)
  } catch (e) {
    if (e instanceof TableError) throw new SourceError(name, 'file', e.message)
    throw e
  }
  const h = table.header.map((x) => x.toLowerCase())
  if (h.includes('img_src') && (h.includes('camera_name') || h.includes('camera'))) return { format: 'v1-csv', table }
  if (isMerRmcTable(table)) return { format: 'mer-rmc-table', table }
  if (isMerTraverseTable(table)) return { format: 'mer-traverse-table', table }
  if (isMerTimetable(table)) return { format: 'mer-timetable', table }
  return { format: 'unknown', why: `unrecognised table header "${table.header.slice(0, 6).join(',')}"` }
}

/** The first 64 characters after leading white space (without copying a large text). */
function leadingText(text: string): string {
  let i = 0
  while (i < text.length && /\s/.test(text[i]!)) i++
  return text.slice(i, i + 64)
}

function detectJson(doc: unknown): Detected {
  if (Array.isArray(doc)) {
    if (doc.length === 0 || has(doc[0], 'img_src')) return { format: 'v1-json', doc }
    // A bare array of Perseverance raw_images records (the feed's `images`, saved without the wrapper).
    if (has(doc[0], 'imageid') && has(doc[0], 'image_files')) return { format: 'm2020-raw-images', doc: { images: doc } }
    return { format: 'unknown', why: 'a JSON array whose items have no img_src' }
  }
  if (!doc || typeof doc !== 'object') return { format: 'unknown', why: 'JSON that is not an object or array' }
  if (has(doc, 'photo_manifest')) {
    const m = (doc as { photo_manifest: unknown }).photo_manifest
    if (!m || typeof m !== 'object' || Array.isArray(m)) return { format: 'unknown', why: 'photo_manifest is not an object' }
    return { format: 'manifest', doc }
  }
  if (isArrayOf(doc, 'photos')) return { format: 'v1-json', doc }
  // v1 records under another key (SOURCES.md §2.15), the same reader.
  if (isArrayOf(doc, 'pics')) return { format: 'v1-pics', doc: { photos: (doc as { pics: unknown[] }).pics } }
  if (isArrayOf(doc, 'images')) return { format: 'm2020-raw-images', doc }
  if (isArrayOf(doc, 'items')) return { format: 'msl-raw-image-items', doc }
  if (has(doc, 'imageid') && has(doc, 'link')) return { format: 'mru-record', doc }
  if (isFeatureCollection(doc)) return { format: isLineLayer(doc) ? 'traverse' : 'waypoints', doc }
  if (isCameraUrlLists(doc)) return { format: 'camera-url-lists', doc }
  return { format: 'unknown', why: `JSON object with keys ${Object.keys(doc).slice(0, 6).join(', ')}` }
}

/**
 * Deepest [ / { nesting and longest string literal of a JSON text, in one pass before it is parsed
 * (brackets inside strings do not count), so a hostile file is refused before JSON.parse builds
 * a 100,000-level structure or ten-megabyte values.
 */
export function jsonShape(text: string): { depth: number; longestString: number } {
  let depth = 0
  let max = 0
  let longest = 0
  const n = text.length
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i)
    if (c === 34) {
      // A string: its closing quote is the first one after an even run of backslashes (most of a
      // feed page is strings; found by indexOf, not character by character).
      const start = i
      let end = text.indexOf('"', i + 1)
      while (end > 0) {
        let k = end - 1
        while (text.charCodeAt(k) === 92) k--
        if ((end - 1 - k) % 2 === 0) break
        end = text.indexOf('"', end + 1)
      }
      if (end < 0) {
        if (n - start - 1 > longest) longest = n - start - 1
        break
      }
      if (end - start - 1 > longest) longest = end - start - 1
      i = end
    } else if (c === 91 || c === 123) {
      if (++depth > max) max = depth
    } else if (c === 93 || c === 125) depth--
  }
  return { depth: max, longestString: longest }
}
