/**
 * The build's image URL check (index-builder/normalize/validate-record.ts checkUrl) accepts the
 * plainest URLs without parsing them: it must accept and refuse exactly what parsing every URL
 * did, for every image URL of the bundled sources and for URLs made to sit on the edge of the
 * plain form (ports, credentials, IP addresses, punycode, upper case, queries, odd paths).
 */
import { expect, test } from 'bun:test'
import { join } from 'node:path'
import { checkUrl } from '../index-builder/normalize/validate-record'
import { readSources } from '../index-builder/normalize/normalize-sources'
import { DEFAULT_INCOMING_DIR, DEFAULT_RAW_DIR } from '../index-builder/sources/read-sources'
import { MAX_CHARS } from '../index-builder/sources/input-limits'
import { RecordError } from '../index-builder/sources/source-error'

const CONTROL = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/

/** The check as it was, every URL parsed: the reference the fast path must agree with. */
function parsedCheck(url: string): string {
  if (url.length > MAX_CHARS.url) return 'too long'
  if (CONTROL.test(url) || /\s/.test(url)) return 'whitespace or control'
  let u: URL
  try {
    u = new URL(url)
  } catch {
    return 'not an absolute URL'
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return 'scheme'
  if (u.username || u.password) return 'credentials'
  return 'ok'
}

function outcome(url: string): string {
  try {
    checkUrl(url, 'image full URL')
    return 'ok'
  } catch (e) {
    if (!(e instanceof RecordError)) throw e
    const r = e.reason
    if (/characters \(at most/.test(r)) return 'too long'
    if (/whitespace or control/.test(r)) return 'whitespace or control'
    if (/not an absolute URL/.test(r)) return 'not an absolute URL'
    if (/has scheme/.test(r)) return 'scheme'
    if (/credentials/.test(r)) return 'credentials'
    return r
  }
}

const EDGES = [
  'https://mars.nasa.gov/mars2020-raw-images/pub/ods/surface/sol/00002/ids/edr/browse/edl/EAF_0002_0667110211_374ECV_N0010052EDLC00002_0010LUJ01_800.jpg',
  'http://mars.jpl.nasa.gov/msl-raw-images/proj/msl/redops/ods/surface/sol/01000/opgs/edr/ncam/NLB_486265257EDR_F0481570NCAM00323M_.JPG',
  'https://mars.nasa.gov',
  'https://mars.nasa.gov/',
  'https://a/b',
  'https://localhost/x.jpg',
  'https://300.1.1.1/x.jpg',
  'https://1.2.3.4/x.jpg',
  'https://0x7f.1/x.jpg',
  'https://a.0x7f/x.jpg',
  'https://mars.999/x.jpg',
  'https://xn--nxasmq6b.com/x.jpg',
  'https://xn--abc.gov/x.jpg',
  'https://a.xn--/x.jpg',
  'https://XN--abc.gov/x.jpg',
  'https://-a-.gov/x.jpg',
  'https://a..gov/x.jpg',
  'https://.gov/x.jpg',
  'https://gov./x.jpg',
  'https://Mars.NASA.gov/x.jpg',
  'HTTPS://mars.nasa.gov/x.jpg',
  'https://mars.nasa.gov:443/x.jpg',
  'https://mars.nasa.gov:99999/x.jpg',
  'https://user:pw@mars.nasa.gov/x.jpg',
  'https://user@mars.nasa.gov/x.jpg',
  'https://mars.nasa.gov/x.jpg?size=1',
  'https://mars.nasa.gov/x.jpg#f',
  'https://mars.nasa.gov/a%20b.jpg',
  'https://mars.nasa.gov/a%zz.jpg',
  'https://mars.nasa.gov/a b.jpg',
  'https://mars.nasa.gov/a\u200bb.jpg',
  'https://mars.nasa.gov/a\\b.jpg',
  'https://mars.nasa.gov//double/~tilde/_.-',
  'https:/mars.nasa.gov/x.jpg',
  'https:mars.nasa.gov/x.jpg',
  'https://',
  'ftp://mars.nasa.gov/x.jpg',
  'javascript://mars.nasa.gov/x.jpg',
  'mars.nasa.gov/x.jpg',
  '/x.jpg',
  '',
  `https://mars.nasa.gov/${'a'.repeat(MAX_CHARS.url)}`,
  `https://mars.nasa.gov/${'a'.repeat(MAX_CHARS.url - 'https://mars.nasa.gov/'.length)}`,
]

test('every image URL of the bundled sources, and URLs on the edge of the plain form, are accepted or refused as parsing each URL did', async () => {
  const { records } = await readSources([DEFAULT_RAW_DIR, DEFAULT_INCOMING_DIR, join(import.meta.dir, 'fixtures/feeds')], { skipBad: true })
  const urls = new Set<string>(EDGES)
  for (const r of records) for (const u of Object.values(r.images)) if (u) urls.add(u)
  expect(urls.size).toBeGreaterThan(10_000)
  const differ: Array<{ url: string; fast: string; parsed: string }> = []
  const seen = new Set<string>()
  for (const url of urls) {
    const fast = outcome(url)
    const parsed = parsedCheck(url)
    seen.add(parsed)
    if (fast !== parsed) differ.push({ url: url.slice(0, 120), fast, parsed })
  }
  expect(differ).toEqual([])
  // The edges reach every way the check refuses a URL.
  expect([...seen].sort()).toEqual(['credentials', 'not an absolute URL', 'ok', 'scheme', 'too long', 'whitespace or control'])
}, 120_000)
