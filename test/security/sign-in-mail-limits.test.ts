import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from 'bun:test'
import { linkIn } from '../setup/smtp'
import { FormClient, formFields, makeDashboardApp, type DashboardApp } from '../setup/dashboard-app'
import { SQLITE } from '../setup/key-stores'
import { InvalidEmailError, normaliseEmail } from '../../src/keys/email-address'
import { openMailer } from '../../src/mail/mailer'

setDefaultTimeout(30_000)

/** Spellings that nodemailer reads as an address list or a display name around victim@example.org. */
const SPELLINGS = [
  'victim@example.org,',
  'victim@example.org;',
  'x<victim@example.org>',
  '<victim@example.org>',
  'Victim <victim@example.org>',
  '"victim"@example.org',
  '"x"<victim@example.org>',
  'victim@example.org (comment)',
  '(comment)victim@example.org',
  'a@example.org,victim@example.org',
  'a@example.org;victim@example.org',
  'victim@example.org,victim@example.org',
  'victim@[127.0.0.1]',
  'victim\\@example.org',
]

/** A browser on one client address (TRUST_PROXY: the proxy's X-Forwarded-For names it). */
async function clientAt(t: DashboardApp, address: string) {
  const c = new FormClient((r) => t.app.handle(r))
  const headers = { 'x-forwarded-for': address }
  const form = formFields(await (await c.get('/dashboard', headers)).text(), '/dashboard/sign-in')
  return { ask: (email: string) => c.post('/dashboard/sign-in', { ...form, email }, headers), c, headers }
}

const mailsTo = (t: DashboardApp, to: string) => t.smtp.messages.filter((m) => m.to.includes(to))

describe('one mailbox per sign-in, counted as that mailbox', () => {
  let t: DashboardApp
  beforeAll(async () => {
    t = await makeDashboardApp(SQLITE, { trustProxy: true })
  })
  afterAll(async () => {
    await t.close()
  })

  test('the normaliser accepts only a single RFC 5321 mailbox: no list separators, angle brackets, quotes or comments', () => {
    for (const s of SPELLINGS) expect(() => normaliseEmail(s), s).toThrow(InvalidEmailError)
    for (const ok of ['victim@example.org', 'Victim@Example.ORG', "o'neil+tag@mail.example.ie", 'émile@exemple.fr']) expect(normaliseEmail(ok)).toBe(ok.toLowerCase())
  })

  test('the review replay: list and display-name spellings of one victim are a 400 and mail nothing; the canonical address stops at its limit', async () => {
    const a = await clientAt(t, '198.51.100.1')
    for (const s of SPELLINGS) expect((await a.ask(s)).status, s).toBe(400)
    const statuses: number[] = []
    for (let i = 0; i < 5; i++) statuses.push((await a.ask('victim@example.org')).status)
    expect(statuses).toEqual([200, 200, 200, 200, 200])
    for (const s of ['VICTIM@example.org', ' victim@EXAMPLE.org ', 'ｖｉｃｔｉｍ@example.org']) expect((await a.ask(s)).status, s).toBe(429)
    await Bun.sleep(300)
    expect(mailsTo(t, 'victim@example.org')).toHaveLength(5)
  })

  test('the mailer hands SMTP one recipient even for text a mailer would read as a list', async () => {
    const mailer = openMailer({ smtpUrl: t.smtp.url, mailFrom: 'Mars photos <dash@example.org>' })
    try {
      await mailer.sendSignIn({ to: 'list@example.org,other@example.org', link: 'https://mars-api.example/dashboard/link?token=x', validMinutes: 15 }).catch(() => {})
      await Bun.sleep(300)
      expect(mailsTo(t, 'other@example.org')).toHaveLength(0)
      expect(mailsTo(t, 'list@example.org')).toHaveLength(0)
    } finally {
      mailer.close()
    }
  })
})

describe('nobody can lock an owner out of sign-in', () => {
  let now = 1_900_000_000_000
  let t: DashboardApp
  beforeAll(async () => {
    t = await makeDashboardApp(SQLITE, { trustProxy: true, clock: () => now })
  })
  afterAll(async () => {
    await t.close()
  })

  test('five requests for the owner from elsewhere: the owner still signs in with a mailed link, and gets a new one once those could have expired', async () => {
    const attacker = await clientAt(t, '198.51.100.7')
    for (let i = 0; i < 5; i++) expect((await attacker.ask('owner@example.org')).status).toBe(200)
    expect((await attacker.ask('owner@example.org')).status).toBe(429) // the attacker's own limit for this address
    const owner = await clientAt(t, '203.0.113.9')
    // The mailbox got its 5 links for this quarter hour: the owner is told to use one, and it works.
    const full = await owner.ask('owner@example.org')
    expect(full.status).toBe(429)
    expect(await full.text()).toContain('use the latest one in your mail')
    const mailed = mailsTo(t, 'owner@example.org')
    expect(mailed).toHaveLength(5)
    const link = new URL(linkIn(mailed.at(-1)!))
    const confirm = await owner.c.get(link.pathname + link.search, owner.headers)
    expect((await owner.c.post('/dashboard/link', formFields(await confirm.text(), '/dashboard/link'), owner.headers)).status).toBe(303)
    // 16 minutes later every mailed link has expired: the owner asks and gets a fresh one; the attacker is still held.
    now += 16 * 60_000
    expect((await owner.ask('owner@example.org')).status).toBe(200)
    expect((await attacker.ask('owner@example.org')).status).toBe(429)
    await Bun.sleep(300)
    expect(mailsTo(t, 'owner@example.org')).toHaveLength(6)
  })

  test('attackers on many addresses bound the mail an address receives (5 per 15 minutes), and each refusal leaves a still-valid link in the mailbox', async () => {
    for (let i = 0; i < 12; i++) await (await clientAt(t, `192.0.2.${i}`)).ask('busy@example.org')
    await Bun.sleep(300)
    const mailed = mailsTo(t, 'busy@example.org')
    expect(mailed).toHaveLength(5)
    now += 14 * 60_000 // the first link is 14 minutes old: still valid
    const owner = await clientAt(t, '203.0.113.10')
    expect((await owner.ask('busy@example.org')).status).toBe(429)
    const first = new URL(linkIn(mailed[0]!))
    const confirm = await owner.c.get(first.pathname + first.search, owner.headers)
    expect((await owner.c.post('/dashboard/link', formFields(await confirm.text(), '/dashboard/link'), owner.headers)).status).toBe(303)
  })
})
