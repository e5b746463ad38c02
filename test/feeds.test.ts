import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { DOMParser, type Element } from '@xmldom/xmldom'
import { makeTestApp, type TestApp } from './setup/test-app'

/**
 * The feeds of new photos: an Atom feed (RFC 4287) read by a real namespace-aware XML parser, a
 * JSON Feed 1.1 with the members its spec requires, both newest added_at first, 50 entries; ETag
 * and Last-Modified make an unchanged feed a 304; a feed token stands for its key, counted against
 * it, never echoed or logged, and ends when the key is regenerated or revoked.
 */
const ATOM = 'http://www.w3.org/2005/Atom'
const QUERY = 'rovers=perseverance&cameras=MCZ_LEFT'

let t: TestApp
beforeAll(async () => {
  t = await makeTestApp({ keyLimits: { hourly: 1e6, daily: 1e6 } })
})
afterAll(() => t.close())

function parseAtom(text: string) {
  const errors: string[] = []
  const doc = new DOMParser({ onError: (level, msg) => void errors.push(`${level}: ${msg}`) }).parseFromString(text, 'application/xml')
  expect(errors).toEqual([])
  return doc.documentElement!
}

const children = (e: Element, name: string) => Array.from(e.childNodes).filter((n): n is Element => n.nodeType === 1 && (n as Element).namespaceURI === ATOM && (n as Element).localName === name)
const one = (e: Element, name: string) => {
  const c = children(e, name)
  expect({ name, count: c.length }).toEqual({ name, count: 1 })
  return c[0]!
}
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/

/** The list's answer for the same filters in the feed's order. */
async function listed(query: string): Promise<any[]> {
  const r = await t.request(`/api/v2/photos?${query}&sort=-added_at&per_page=50&field_set=complete&include=camera`)
  expect(r.status).toBe(200)
  return ((await r.json()) as any).data
}

describe('feed.atom', () => {
  test("is an RFC 4287 feed: every required element, 50 entries newest added_at first, each with the photo's title, image and API page as a stable id", async () => {
    const r = await t.request(`/api/v2/photos/feed.atom?${QUERY}`)
    expect(r.status).toBe(200)
    expect(r.headers.get('content-type')).toBe('application/atom+xml; charset=utf-8')
    const feed = parseAtom(await r.text())
    expect(feed.namespaceURI).toBe(ATOM)
    expect(feed.localName).toBe('feed')
    for (const name of ['id', 'title', 'updated']) expect(one(feed, name).textContent!.length).toBeGreaterThan(0)
    expect(one(feed, 'updated').textContent).toMatch(RFC3339)
    // 4.1.1: a feed whose entries carry no author names one itself.
    expect(one(one(feed, 'author'), 'name').textContent).toBe('NASA/JPL-Caltech')
    const self = children(feed, 'link').find((l) => l.getAttribute('rel') === 'self')!
    expect(self.getAttribute('href')).toBe(`http://localhost/api/v2/photos/feed.atom?${QUERY}`)
    const want = await listed(QUERY)
    expect(want.length).toBe(50)
    const entries = children(feed, 'entry')
    expect(entries.length).toBe(50)
    entries.forEach((e, i) => {
      const photo = want[i]
      expect(one(e, 'id').textContent).toBe(`http://localhost/api/v2/photos/${photo.id}`)
      // Its own title, else rover, camera, sol and image id.
      const camera = photo.relationships.camera.attributes.full_name
      expect(one(e, 'title').textContent).toBe(photo.attributes.title ?? `Perseverance ${camera} sol ${photo.attributes.sol}: ${photo.attributes.nasa_id}`)
      expect(one(e, 'updated').textContent).toBe(photo.attributes.added_at)
      expect(one(e, 'updated').textContent).toMatch(RFC3339)
      const links = children(e, 'link')
      expect(links.find((l) => l.getAttribute('rel') === 'alternate')!.getAttribute('href')).toBe(`http://localhost/api/v2/photos/${photo.id}`)
      const images = photo.attributes.images
      expect(links.find((l) => l.getAttribute('rel') === 'enclosure')!.getAttribute('href')).toBe(images.full ?? images.large ?? images.medium ?? images.small)
      expect(one(e, 'summary').textContent!.length).toBeGreaterThan(0)
    })
    expect(one(feed, 'updated').textContent).toBe(want[0].attributes.added_at)
  })

  test('an unchanged feed is a 304 by its ETag and by its Last-Modified', async () => {
    const r = await t.request(`/api/v2/photos/feed.atom?${QUERY}`)
    const etag = r.headers.get('etag')!
    const modified = r.headers.get('last-modified')!
    expect(etag).toBeTruthy()
    expect(new Date(modified).toUTCString()).toBe(modified)
    expect((await t.request(`/api/v2/photos/feed.atom?${QUERY}`, { headers: { 'if-none-match': etag } })).status).toBe(304)
    expect((await t.request(`/api/v2/photos/feed.atom?${QUERY}`, { headers: { 'if-modified-since': modified } })).status).toBe(304)
    const earlier = new Date(Date.parse(modified) - 1000).toUTCString()
    expect((await t.request(`/api/v2/photos/feed.atom?${QUERY}`, { headers: { 'if-modified-since': earlier } })).status).toBe(200)
  })

  test('takes the photo filters and refuses the list-only parameters and bad values with a 400 naming them', async () => {
    const bad = await t.request('/api/v2/photos/feed.atom?cameras=NOPE&added_since=soon')
    expect(bad.status).toBe(400)
    expect(((await bad.json()) as any).errors.map((e: any) => e.parameter).sort()).toEqual(['added_since', 'cameras'])
    expect((await t.request('/api/v2/photos/feed.atom?sort=sol')).status).toBe(400)
    const few = parseAtom(await (await t.request('/api/v2/photos/feed.atom?rovers=spirit&sol=1&cameras=ENTRY')).text())
    expect(children(few, 'entry').length).toBe(((await (await t.request('/api/v2/photos?rovers=spirit&sol=1&cameras=ENTRY')).json()) as any).meta.total_count)
  })
})

describe('feed.json', () => {
  test('is a JSON Feed 1.1 with its required members, the same entries in the same order as the Atom feed', async () => {
    const r = await t.request(`/api/v2/photos/feed.json?${QUERY}`)
    expect(r.status).toBe(200)
    expect(r.headers.get('content-type')).toBe('application/feed+json; charset=utf-8')
    const feed = (await r.json()) as any
    expect(feed.version).toBe('https://jsonfeed.org/version/1.1')
    expect(typeof feed.title).toBe('string')
    expect(feed.feed_url).toBe(`http://localhost/api/v2/photos/feed.json?${QUERY}`)
    const want = await listed(QUERY)
    expect(feed.items.map((i: any) => i.id)).toEqual(want.map((p) => `http://localhost/api/v2/photos/${p.id}`))
    for (const item of feed.items) {
      expect(typeof item.id).toBe('string')
      expect(typeof (item.content_text ?? item.content_html)).toBe('string')
      expect(item.image).toMatch(/^https?:\/\//)
      expect(item.date_published).toMatch(RFC3339)
    }
  })
})

describe('feed tokens', () => {
  test('stand for the key in a feed URL, are counted against it, never come back in links or logs, and end when the key is regenerated', async () => {
    const email = ((await t.deps.keys.lookup(t.key)) as { email: string }).email
    const token = (await t.deps.keys.createFeedToken(email)) as string
    const before = await t.request(`/api/v2/photos/feed.json?${QUERY}`)
    const remaining = Number(before.headers.get('x-ratelimit-remaining'))
    const r = await t.anonymous(`/api/v2/photos/feed.json?${QUERY}&feed_token=${token}`)
    expect(r.status).toBe(200)
    expect(Number(r.headers.get('x-ratelimit-remaining'))).toBe(remaining - 1)
    const text = await r.text()
    expect(text).not.toContain(token)
    expect(JSON.parse(text).feed_url).toBe(`http://localhost/api/v2/photos/feed.json?${QUERY}`)
    const atom = await t.anonymous(`/api/v2/photos/feed.atom?feed_token=${token}&${QUERY}`)
    expect(atom.status).toBe(200)
    expect(await atom.text()).not.toContain(token)
    expect(t.accessLines.join('\n')).not.toContain(token)
    expect(JSON.stringify(t.logs)).not.toContain(token)
    // Only the feeds read it: elsewhere a feed token is not a key.
    expect((await t.anonymous(`/api/v2/photos?feed_token=${token}`)).status).toBe(401)
    // A wrong token is a 401.
    expect((await t.anonymous(`/api/v2/photos/feed.atom?feed_token=mv_feed_${'0'.repeat(40)}`)).status).toBe(401)
    await t.deps.keys.regenerate(email)
    const ended = await t.anonymous(`/api/v2/photos/feed.atom?feed_token=${token}`)
    expect(ended.status).toBe(401)
    expect(((await ended.json()) as any).detail).toContain('regenerated or revoked')
  })
})
