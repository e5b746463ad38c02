import { describe, expect, test } from 'bun:test'
import { clearCookie, readCookie, setCookie } from '../plugins/dashboard/cookies'
import { csrfMatches, csrfToken, sameOrigin } from '../plugins/dashboard/csrf'
import { esc } from '../plugins/dashboard/pages'
import { MAX_FORM_BYTES, readForm } from '../plugins/dashboard/read-form'
import { hashSecret, isWellFormedSecret, newSecret } from '../plugins/dashboard/tokens'

const form = (body: string | ReadableStream, headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' }) =>
  new Request('http://localhost/dashboard/key', { method: 'POST', headers, body })

describe('dashboard secrets, cookies and CSRF (pure modules)', () => {
  test('secrets are 256-bit base64url and distinct, their hash is SHA-256 hex, and any other shape is refused', () => {
    const a = newSecret()
    const b = newSecret()
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(Buffer.from(a, 'base64url').length).toBe(32)
    expect(a).not.toBe(b)
    expect(hashSecret(a)).toMatch(/^[0-9a-f]{64}$/)
    for (const bad of [undefined, '', a.slice(1), a + 'x', a.slice(0, 42) + '=', a.slice(0, 42) + '/']) expect(isWellFormedSecret(bad)).toBe(false)
  })

  test('the CSRF token fits only the secret it came from, compared in constant time', () => {
    const s = newSecret()
    expect(csrfMatches(csrfToken(s), s)).toBe(true)
    expect(csrfMatches(csrfToken(newSecret()), s)).toBe(false)
    expect(csrfMatches(csrfToken(s).slice(1), s)).toBe(false)
    expect(csrfMatches(undefined, s)).toBe(false)
    expect(csrfMatches(csrfToken(s), undefined)).toBe(false)
  })

  test('Origin must equal the service origin exactly; without Origin only Sec-Fetch-Site: same-origin passes', () => {
    const r = (h: Record<string, string>) => new Request('http://localhost/', { method: 'POST', headers: h })
    expect(sameOrigin(r({ origin: 'http://localhost:3000' }), 'http://localhost:3000')).toBe(true)
    expect(sameOrigin(r({ origin: 'http://localhost:3000.evil.example' }), 'http://localhost:3000')).toBe(false)
    expect(sameOrigin(r({ origin: 'https://localhost:3000' }), 'http://localhost:3000')).toBe(false)
    expect(sameOrigin(r({ origin: 'null', 'sec-fetch-site': 'same-origin' }), 'http://localhost:3000')).toBe(false)
    expect(sameOrigin(r({ 'sec-fetch-site': 'same-origin' }), 'http://localhost:3000')).toBe(true)
    expect(sameOrigin(r({}), 'http://localhost:3000')).toBe(false)
  })

  test('cookies: exact attributes; reading finds the right name only, and ignores oversized headers', () => {
    expect(setCookie('session', 'v', false, 60)).toBe('mv_session=v; Path=/dashboard; Max-Age=60; HttpOnly; SameSite=Lax')
    expect(setCookie('session', 'v', true, 60)).toBe('__Host-mv_session=v; Path=/; Max-Age=60; HttpOnly; SameSite=Lax; Secure')
    expect(clearCookie('form', true)).toBe('__Host-mv_form=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax; Secure')
    expect(readCookie('a=1; mv_session=abc; mv_form=def', 'session', false)).toBe('abc')
    expect(readCookie('xmv_session=abc', 'session', false)).toBeUndefined()
    expect(readCookie('mv_session=abc', 'session', true)).toBeUndefined() // behind https only the __Host- cookie counts
    expect(readCookie(`pad=${'x'.repeat(9000)}; mv_session=abc`, 'session', false)).toBeUndefined()
  })

  test('HTML escaping covers the five characters that matter in text and attributes', () => {
    expect(esc(`<a href="x" onclick='y'>&</a>`)).toBe('&#60;a href=&#34;x&#34; onclick=&#39;y&#39;&#62;&#38;&#60;/a&#62;')
  })
})

describe('readForm', () => {
  test('reads urlencoded fields; refuses other media types (415) and bodies over 4 KiB, announced or not (413)', async () => {
    const ok = await readForm(form('a=1&b=x%40y'), 1000)
    expect('fields' in ok && ok.fields.get('b')).toBe('x@y')
    expect(await readForm(form('a=1', { 'content-type': 'text/plain' }), 1000)).toEqual({ refused: 415 })
    expect(await readForm(form('a='.padEnd(MAX_FORM_BYTES + 1, 'x')), 1000)).toEqual({ refused: 413 })
    const unannounced = new ReadableStream({
      start(c) {
        for (let i = 0; i < 5; i++) c.enqueue(new Uint8Array(1000).fill(97))
        c.close()
      },
    })
    expect(await readForm(form(unannounced), 1000)).toEqual({ refused: 413 })
  })

  test('a body that does not finish arriving within the deadline is refused with 408', async () => {
    const trickle = new ReadableStream({
      start(c) {
        c.enqueue(new TextEncoder().encode('email=a'))
      }, // never closed
    })
    const t0 = performance.now()
    expect(await readForm(form(trickle), 200)).toEqual({ refused: 408 })
    expect(performance.now() - t0).toBeLessThan(2000)
  })
})
