import type { Store } from '../../src/store/store'
import type { QueryShape } from '../shapes'
import { BASE, type EngineApi } from './engine-api'

/**
 * The call that answers a shape in process: the render function of its endpoint, with the
 * parameters parsed once (as the server does per request, outside what we time).
 * Returns the reason when the engine lacks the function.
 */
export function ourCall(shape: QueryShape, engine: EngineApi, store: Store): (() => string) | string {
  const params = new URLSearchParams(shape.query)
  switch (shape.endpoint) {
    case 'photos':
      return engine.listPhotos ? () => engine.listPhotos!(store, params, BASE) : 'listPhotos missing (src/query/index.ts)'
    case 'photo':
      return engine.getPhoto ? () => engine.getPhoto!(store, shape.id!, params, BASE) : 'getPhoto missing (src/query/index.ts)'
    case 'stats':
      return engine.photoStats ? () => engine.photoStats!(store, params, BASE) : 'photoStats missing (src/query/index.ts)'
    case 'batch':
      return engine.batchPhotos ? () => engine.batchPhotos!(store, shape.body, params, BASE) : 'batchPhotos missing (src/query/index.ts)'
    case 'locations':
      return engine.listLocations ? () => engine.listLocations!(store, params, BASE) : 'listLocations missing (src/query/index.ts)'
    case 'panoramas':
      return engine.listPanoramas ? () => engine.listPanoramas!(store, params, BASE) : 'listPanoramas missing (src/query/index.ts)'
    case 'related':
      return engine.relatedPhotos ? () => engine.relatedPhotos!(store, shape.id!, params, BASE) : 'relatedPhotos missing (src/query/index.ts)'
  }
}

/** What two answers must agree on: ids in order, the total, and stats groups. */
export interface Answer {
  ids: string[]
  total?: number
  /** key -> count (stats). */
  groups?: Map<string, number>
}

/** Reads our JSON answer. Throws when it is not the envelope the endpoint promises. */
export function ourAnswer(endpoint: QueryShape['endpoint'], answer: string): Answer {
  const doc = JSON.parse(answer)
  if (endpoint === 'stats') {
    const groups = new Map<string, number>()
    for (const g of doc.data.groups) groups.set(String(g.key), Number(g.count))
    return { ids: [], total: Number(doc.data.total_photos), groups }
  }
  if (endpoint === 'photo') return { ids: [String(doc.data.id)] }
  if (endpoint === 'related') {
    // The parts in answer order, each id named by its part; sizes as groups.
    const { stereo, sequence, nearby } = doc.related
    const ids: string[] = []
    const groups = new Map<string, number>()
    if (stereo) ids.push(`stereo ${stereo.id}`)
    if (sequence) {
      groups.set('sequence', sequence.size)
      for (const p of sequence.photos) ids.push(`sequence ${p.id}`)
    }
    if (nearby) {
      groups.set('nearby', nearby.total)
      for (const n of nearby.photos) ids.push(`nearby ${n.photo.id}`)
    }
    return { ids, groups }
  }
  const ids = (doc.data as Array<{ id: unknown }>).map((d) => String(d.id))
  return { ids, total: endpoint === 'batch' ? undefined : doc.meta?.total_count }
}

/** Why two answers differ, or undefined when they are equal. */
export function answerDifference(ours: Answer, theirs: Answer): string | undefined {
  if (ours.total !== undefined && theirs.total !== undefined && ours.total !== theirs.total)
    return `total ${ours.total} vs ${theirs.total}`
  if (ours.groups || theirs.groups) {
    const a = ours.groups ?? new Map()
    const b = theirs.groups ?? new Map()
    if (a.size !== b.size) return `${a.size} groups vs ${b.size}`
    for (const [k, n] of a) if (b.get(k) !== n) return `group ${k}: ${n} vs ${b.get(k)}`
  }
  if (ours.ids.length !== theirs.ids.length) return `${ours.ids.length} rows vs ${theirs.ids.length}`
  for (let i = 0; i < ours.ids.length; i++)
    if (ours.ids[i] !== theirs.ids[i]) return `row ${i}: id ${ours.ids[i]} vs ${theirs.ids[i]} (first difference)`
  return undefined
}
