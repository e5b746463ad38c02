/**
 * The two NASA raw-image feeds the fetcher reads (SOURCES.md §4.1, §4.2): where a sol's pages
 * are, how a page says whether another follows, and how the newest sol is asked for. Both live on
 * one origin (FEED_BASE_URL, default NASA's), so a mirror or a test server replaces both at once.
 */

export type FeedRover = 'perseverance' | 'curiosity'
export const FEED_ROVERS: readonly FeedRover[] = ['perseverance', 'curiosity']

/** NASA's origin for both feeds (SOURCES.md §4.1 and §4.2). */
export const DEFAULT_FEED_BASE_URL = 'https://mars.nasa.gov'

export interface FeedSpec {
  rover: FeedRover
  /** The page document's array of image records. */
  listKey: 'images' | 'items'
  /** Images asked for per page: the feed's own page sizes (the Curiosity API's 200, §4.2). */
  perPage: number
  /** The sol range the feed can hold: landing sol 0 up to a generous bound on the mission length. */
  maxSol: number
  pageUrl(base: string, sol: number, page: number): string
  latestUrl(base: string): string
  /** The newest sol from the answer of latestUrl, or undefined when the answer does not say. */
  latestSol(doc: unknown): number | undefined
  /** The sol's image count the page states (undefined when it states none). */
  total(doc: Record<string, unknown>): number | undefined
  /** Whether a next page may hold more images: from the page document, its record count, and the records of this sol so far. */
  hasMore(doc: Record<string, unknown>, records: number, seenSoFar: number): boolean
}

const origin = (base: string) => base.replace(/\/+$/, '')

/** Total images of a Perseverance page (`total_images`; older pages say `total_results`). */
function perseveranceTotal(doc: Record<string, unknown>): number | undefined {
  for (const k of ['total_images', 'total_results']) {
    const v = doc[k]
    const n = typeof v === 'string' && /^\d{1,9}$/.test(v) ? Number(v) : v
    if (typeof n === 'number' && Number.isSafeInteger(n) && n >= 0) return n
  }
  return undefined
}

export const PERSEVERANCE: FeedSpec = {
  rover: 'perseverance',
  listKey: 'images',
  perPage: 100,
  maxSol: 20_000,
  pageUrl: (base, sol, page) =>
    `${origin(base)}/rss/api/?feed=raw_images&category=mars2020&feedtype=json&num=100&page=${page}&order=sol+desc&sol=${sol}`,
  latestUrl: (base) => `${origin(base)}/rss/api/?feed=raw_images&category=mars2020&feedtype=json&latest=true`,
  total: perseveranceTotal,
  latestSol: (doc) => {
    const v = (doc as { latest_sol?: unknown } | null)?.latest_sol
    const n = typeof v === 'string' && /^\d{1,6}$/.test(v) ? Number(v) : v
    return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 ? n : undefined
  },
  hasMore: (doc, records, seenSoFar) => {
    if (records === 0) return false
    const total = perseveranceTotal(doc)
    return total === undefined ? records >= 100 : seenSoFar < total
  },
}

export const CURIOSITY: FeedSpec = {
  rover: 'curiosity',
  listKey: 'items',
  perPage: 200,
  maxSol: 20_000,
  pageUrl: (base, sol, page) =>
    `${origin(base)}/api/v1/raw_image_items/?order=sol%20desc&per_page=200&page=${page}&condition_1=msl:mission&condition_2=${sol}:sol:in`,
  latestUrl: (base) => `${origin(base)}/api/v1/raw_image_items/?order=sol%20desc&per_page=1&page=0&condition_1=msl:mission`,
  latestSol: (doc) => {
    const first = ((doc as { items?: unknown } | null)?.items as unknown[] | undefined)?.[0] as { sol?: unknown } | undefined
    const n = first?.sol
    return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 ? n : undefined
  },
  total: (doc) => (typeof doc.total === 'number' && Number.isSafeInteger(doc.total) && doc.total >= 0 ? doc.total : undefined),
  hasMore: (doc, records) => doc.more === true && records > 0,
}

export function feedSpec(rover: FeedRover): FeedSpec {
  return rover === 'perseverance' ? PERSEVERANCE : CURIOSITY
}

export function isFeedRover(s: string): s is FeedRover {
  return (FEED_ROVERS as readonly string[]).includes(s)
}
