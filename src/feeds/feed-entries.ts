import type { Store } from '../store/store'
import { ByteSink } from '../query/bytes/byte-sink'
import { Order } from '../query/order/order'
import { parsePhotoQuery } from '../query/params/photo-params'
import { outputSpec } from '../query/params/photo-fields'
import { writePhoto } from '../query/render/photo-json'
import { runQuery } from '../query/page/run-query'

/** Entries in a feed: the newest 50, as feed readers expect (RSS and Atom feeds of news sites carry 10 to 100). */
export const FEED_ENTRIES = 50

/** One photo as a feed entry needs it (its JSON as the list writes it). */
export interface FeedPhoto {
  id: number
  attributes: {
    nasa_id?: string
    sol?: number
    earth_date?: string
    date_taken_utc?: string
    images?: Partial<Record<'small' | 'medium' | 'large' | 'full', string>>
    title?: string
    caption?: string
    credit?: string
    added_at?: string
  }
  relationships?: { rover?: { id: string; attributes?: { name?: string } }; camera?: { id: string; attributes?: { full_name?: string } } }
}

const ENTRY_OUTPUT = outputSpec({ fields: ['nasa_id', 'sol', 'earth_date', 'date_taken_utc', 'images', 'title', 'caption', 'credit', 'added_at', 'rover', 'camera'] })

/**
 * The photos of a feed: those matching the photo filters of `params` (validated as the list
 * validates them: one 400 naming each bad one), newest `added_at` first, then id ascending, at
 * most FEED_ENTRIES. The order is the ledger's, so an entry never moves once published.
 */
export function feedPhotos(store: Store, params: URLSearchParams): FeedPhoto[] {
  const q = parsePhotoQuery(params, store)
  const order = new Order([{ field: 'added_at', desc: true }], store.photos, store.paths)
  const outcome = runQuery(store, q.filters, order, { offset: 0, limit: FEED_ENTRIES })
  const out: FeedPhoto[] = []
  for (const row of outcome.rows) {
    const sink = new ByteSink(1024)
    writePhoto(sink, store, row, ENTRY_OUTPUT)
    out.push(JSON.parse(sink.toString()) as FeedPhoto)
  }
  return out
}

/** The entry's title: the photo's own, else rover, camera, sol and image id (e.g. "Perseverance Mastcam-Z Left sol 1282: ZL0_…"). */
export function entryTitle(p: FeedPhoto): string {
  if (p.attributes.title) return p.attributes.title
  const rover = p.relationships?.rover?.attributes?.name ?? 'Mars rover'
  const camera = p.relationships?.camera?.attributes?.full_name ?? p.relationships?.camera?.id ?? ''
  return `${rover} ${camera} sol ${p.attributes.sol ?? '?'}: ${p.attributes.nasa_id ?? p.id}`.replace(/\s+/g, ' ')
}

/** The largest image the photo has, or undefined. */
export function entryImage(p: FeedPhoto): string | undefined {
  const i = p.attributes.images
  return i?.full ?? i?.large ?? i?.medium ?? i?.small
}

/** Media type of an image URL by its extension (the feeds only carry JPEG and PNG). */
export function imageType(url: string): string {
  return /\.png$/i.test(url) ? 'image/png' : 'image/jpeg'
}

/** The time the feed last changed: its newest entry's added_at, else when the index was built. */
export function feedUpdated(photos: FeedPhoto[], store: Store): number {
  const newest = photos[0]?.attributes.added_at
  const t = newest ? Date.parse(newest) : Date.parse(store.manifest.built_at)
  return Number.isFinite(t) ? t : 0
}
