import { takenSortKey } from '../../src/query/order/sort-values'
import type { Store } from '../../src/store/store'
import { deepPage, queryShapes, type QueryShape, type ShapeContext } from '../shapes'
import { dataFacts } from './data-facts'
import { BASE, type EngineApi } from './engine-api'

function rowOfId(store: Store, id: number): number {
  try {
    const r = store.paths?.rowOfId(id)
    if (typeof r === 'number' && r >= 0) return r
  } catch {
    // access paths not there yet: fall back to a scan (setup only)
  }
  return store.photos.id.indexOf(id)
}

/** The shapes for this store, with the deep-page cursor taken from our own answer. */
export function prepareShapes(engine: EngineApi, store: Store): QueryShape[] {
  const facts = dataFacts(store)
  const ctx: ShapeContext = { facts }
  if (engine.listPhotos) {
    try {
      const doc = JSON.parse(engine.listPhotos(store, new URLSearchParams(`page=${deepPage(facts.rows)}`), BASE))
      const token = doc.pagination?.cursor?.next
      const last = doc.data?.[doc.data.length - 1]
      if (typeof token === 'string' && last) {
        const row = rowOfId(store, Number(last.id))
        ctx.cursorAfterDeepPage = { token, lastId: Number(last.id), lastTaken: takenSortKey(store.photos.date_taken_utc[row], store.photos.earth_date[row]) ?? NaN }
      }
    } catch {
      // the cursor shape reports itself skipped
    }
  }
  return queryShapes(ctx)
}
