import type { FeedHead } from './atom-feed'
import { entryImage, entryTitle, type FeedPhoto } from './feed-entries'

/**
 * A JSON Feed 1.1 (https://jsonfeed.org/version/1.1) of photos: `version` and `title` (required),
 * `home_page_url` and `feed_url` (the feed's own URL, without any credential); each item's `id`
 * (required, a string: the photo's page on the API, stable across rebuilds), `url`, `title`,
 * `content_text` (an item needs content_html or content_text), `image`, `date_published`.
 */
export const JSON_FEED_MEDIA_TYPE = 'application/feed+json'

export function jsonFeed(head: FeedHead, photos: FeedPhoto[]): string {
  return JSON.stringify({
    version: 'https://jsonfeed.org/version/1.1',
    title: head.title,
    home_page_url: head.list,
    feed_url: head.self,
    authors: [{ name: 'NASA/JPL-Caltech' }],
    items: photos.map((p) => {
      const a = p.attributes
      const page = `${head.photoBase}/${p.id}`
      const image = entryImage(p)
      return {
        id: page,
        url: page,
        title: entryTitle(p),
        content_text: a.caption ?? `Sol ${a.sol ?? '?'}${a.date_taken_utc ? `, taken ${a.date_taken_utc}` : ''}`,
        ...(image ? { image } : {}),
        ...(a.added_at ? { date_published: a.added_at } : {}),
        // An extension (JSON Feed 1.1: keys starting with an underscore): the photo's own facts.
        _mars: { nasa_id: a.nasa_id, sol: a.sol, earth_date: a.earth_date, date_taken_utc: a.date_taken_utc },
      }
    }),
  })
}
