import { entryImage, entryTitle, imageType, type FeedPhoto } from './feed-entries'

/**
 * An Atom feed (RFC 4287) of photos. Every required element is written: the feed's id, title,
 * updated and author (4.1.1: the entries carry none of their own), a self link (4.2.7.2,
 * "SHOULD"); each entry's id, title, updated, an alternate link and a summary (4.1.2: needed
 * when it has no content; it has both). Ids are IRIs that never change for a photo: its page on
 * the API (the photo id is stable across rebuilds). Times are RFC 3339 (3.3).
 */
export interface FeedHead {
  title: string
  /** The feed's own URL without any credential: its id and its self link. */
  self: string
  /** The photo list the feed follows (the same filters), its alternate link. */
  list: string
  /** Base of the photo pages, e.g. https://mars-api.example/api/v2/photos */
  photoBase: string
  updated: number
}

export const ATOM_MEDIA_TYPE = 'application/atom+xml'

export function atomFeed(head: FeedHead, photos: FeedPhoto[]): string {
  const out: string[] = [
    '<?xml version="1.0" encoding="utf-8"?>',
    '<feed xmlns="http://www.w3.org/2005/Atom">',
    `  <id>${xml(head.self)}</id>`,
    `  <title>${xml(head.title)}</title>`,
    `  <updated>${iso(head.updated)}</updated>`,
    '  <author><name>NASA/JPL-Caltech</name></author>',
    `  <link rel="self" type="${ATOM_MEDIA_TYPE}" href="${xml(head.self)}"/>`,
    `  <link rel="alternate" type="application/json" href="${xml(head.list)}"/>`,
    '  <generator>Mars rover photo API</generator>',
  ]
  for (const p of photos) {
    const page = `${head.photoBase}/${p.id}`
    const added = p.attributes.added_at ?? iso(head.updated)
    const image = entryImage(p)
    const a = p.attributes
    const summary = a.caption ?? `Sol ${a.sol ?? '?'}${a.date_taken_utc ? `, taken ${a.date_taken_utc}` : ''}`
    out.push(
      '  <entry>',
      `    <id>${xml(page)}</id>`,
      `    <title>${xml(entryTitle(p))}</title>`,
      `    <updated>${xml(added)}</updated>`,
      `    <published>${xml(added)}</published>`,
      `    <link rel="alternate" type="application/json" href="${xml(page)}"/>`,
    )
    if (image) out.push(`    <link rel="enclosure" type="${imageType(image)}" href="${xml(image)}"/>`)
    out.push(`    <summary>${xml(summary)}</summary>`)
    if (image) out.push(`    <content type="html">${xml(`<p><img src="${xml(image)}" alt="${xml(entryTitle(p))}"></p>`)}</content>`)
    if (a.credit) out.push(`    <rights>${xml(a.credit)}</rights>`)
    out.push('  </entry>')
  }
  out.push('</feed>', '')
  return out.join('\n')
}

const iso = (ms: number) => new Date(ms).toISOString()

/** Text or attribute value escaped for XML; characters XML 1.0 cannot hold are dropped. */
export function xml(s: string): string {
  return s
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
}
