import { describe, expect, test } from 'bun:test'
import { InvalidEmailError, normaliseEmail } from '../src/keys/email-address'
import { openMailer } from '../src/mail/mailer'

describe('normaliseEmail (dashboard and keys CLI)', () => {
  test('trims, applies NFKC and lower-cases: the same mailbox always gives the same address', () => {
    expect(normaliseEmail('  Alice@Example.ORG\t')).toBe('alice@example.org')
    expect(normaliseEmail('ｂｏｂ@ｅｘａｍｐｌｅ.ｏｒｇ')).toBe('bob@example.org') // full-width forms fold under NFKC
    expect(normaliseEmail('ﬁle@example.org')).toBe('file@example.org') // the ligature ﬁ is two letters
    expect(normaliseEmail('Émile@exemple.fr')).toBe('émile@exemple.fr')
  })

  test('refuses control, zero-width and bidi characters anywhere, saying which kind', () => {
    for (const bad of ['a\u0000b@example.org', 'a\u0007@example.org', 'a\u200b@example.org', 'a\u200d@example.org', 'a\u2060@example.org', 'a\ufeffb@example.org', 'a\u202e@example.org', 'a\u2066@example.org', 'a\u200f@example.org', 'a@exa\nmple.org']) {
      expect(() => normaliseEmail(bad)).toThrow(InvalidEmailError)
    }
    expect(() => normaliseEmail('evil\u202e@example.org')).toThrow('text-direction')
  })

  test('refuses more than 254 characters, and shapes that are not name@dotted.domain', () => {
    const local = 'a'.repeat(64)
    const domain = `${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}` // 64 + 1 + 189 = 254
    expect(normaliseEmail(`${local}@${domain}`).length).toBe(254)
    expect(() => normaliseEmail(`${local}@${domain}e`)).toThrow('longer than 254')
    expect(() => normaliseEmail('x'.repeat(100_000))).toThrow('longer than 254')
    for (const bad of ['', '   ', 'plain', 'a@b', '@example.org', 'a@@example.org', 'a b@example.org', 'a@example.', 'a@.org', `${'a'.repeat(65)}@example.org`]) {
      expect(() => normaliseEmail(bad)).toThrow(InvalidEmailError)
    }
  })
})

describe('the development mail transport (no SMTP_URL)', () => {
  test('writes the sign-in link as one JSON line and nothing else', async () => {
    const lines: string[] = []
    const mailer = openMailer({ write: (l) => lines.push(l) })
    expect(mailer.kind).toBe('log')
    await mailer.sendSignIn({ to: 'dev@example.org', link: 'http://localhost:3000/dashboard/link?token=abc', validMinutes: 15 })
    expect(lines.length).toBe(1)
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 'info', event: 'mail.sign-in-link', to: 'dev@example.org', link: 'http://localhost:3000/dashboard/link?token=abc', valid_minutes: 15 })
  })
})
