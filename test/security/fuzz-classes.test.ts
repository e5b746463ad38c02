import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from 'bun:test'
import fc from 'fast-check'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildIndex } from '../../index-builder/build-index'
import { KeyStore } from '../../src/keys/key-store'
import { spawnServer, type ServerProcess } from '../setup/test-app'
import { csvViolations, exportJob, mailLines, mailViolations, PUBLIC_URL, runSignIn, SECURITY_ENV, signInJob, writeFormulaFeed, type SecurityJob } from '../support/security-probes'

/**
 * The fuzzer's security classes, short run (the long one is part of `npm run fuzz`): hostile
 * Host/Origin/forwarded headers and address spellings on the dashboard's sign-in POST, and
 * formula-leading feed texts through the CSV export, against real servers.
 */
setDefaultTimeout(120_000)
const SEED = Number(process.env.FUZZ_SEED ?? 20261128)
const work = mkdtempSync(join(tmpdir(), 'mv-fuzz-classes-'))
let server: ServerProcess
afterAll(async () => {
  await server?.stop()
  rmSync(work, { recursive: true, force: true })
})

describe('sign-in under hostile hosts and address spellings', () => {
  beforeAll(async () => {
    server = await spawnServer({ KEYS_DB: join(work, 'keys.sqlite'), INDEX_DIR: process.env.INDEX_DIR, SMTP_URL: '', ...SECURITY_ENV })
  })

  test('300 sign-in POSTs: every mailed link is at PUBLIC_URL, every mail goes to one canonical mailbox, no mailbox over its limits', async () => {
    const statuses = new Map<number, number>()
    for (const job of fc.sample(signInJob, { numRuns: 300, seed: SEED }) as Array<Extract<SecurityJob, { kind: 'sign-in' }>>) {
      const a = await runSignIn(server.port, job)
      const s = a?.status ?? 0
      statuses.set(s, (statuses.get(s) ?? 0) + 1)
      expect(s).toBeLessThan(500)
    }
    await Bun.sleep(200)
    const mails = mailLines(server.lines)
    expect(mails.length).toBeGreaterThan(3) // some went through (Origin = PUBLIC_URL, a plain spelling) …
    expect(statuses.get(403)).toBeGreaterThan(0) // … hostile Origins were refused …
    expect(statuses.get(400)).toBeGreaterThan(0) // … list and display-name spellings were refused …
    expect(statuses.get(429)).toBeGreaterThan(0) // … and the mailbox limits bound.
    expect(mailViolations(server.lines)).toEqual([])
  })

  test('the checks catch what they look for: a link at another host, a list recipient, a sixth mail in an hour', () => {
    const line = (to: string, link: string, t = '2026-11-28T10:00:00.000Z') => JSON.stringify({ t, event: 'mail.sign-in-link', to, link })
    expect(mailViolations([line('v@example.org', 'http://evil.example/dashboard/link?token=x')])[0]).toContain('not at PUBLIC_URL')
    expect(mailViolations([line('a@example.org,v@example.org', `${PUBLIC_URL}/dashboard/link?token=x`)])[0]).toContain('not one mailbox')
    const six = Array.from({ length: 6 }, (_, i) => line('v@example.org', `${PUBLIC_URL}/dashboard/link?token=${i}`, `2026-11-28T10:0${i}:00.000Z`))
    expect(mailViolations(six).length).toBeGreaterThan(0)
  })
})

describe('formula-leading feed texts through the CSV export', () => {
  let exportServer: ServerProcess
  let texts: Map<string, Record<'title' | 'caption' | 'credit', string>>
  beforeAll(async () => {
    const feed = writeFormulaFeed(join(work, 'feed'), 300, SEED)
    texts = feed.texts
    await buildIndex({ out: join(work, 'formula-index'), sources: [feed.file], progress: false })
    const keys = KeyStore.open(join(work, 'export-keys.sqlite'))
    keys.close()
    exportServer = await spawnServer({ KEYS_DB: join(work, 'export-keys.sqlite'), INDEX_DIR: join(work, 'formula-index') })
  })
  afterAll(async () => {
    await exportServer?.stop()
  })

  test('60 CSV exports of an index whose titles, captions and credits begin with = + - @: no field runs as a formula, each text is the feed\'s behind a quote mark', async () => {
    const keys = KeyStore.open(join(work, 'export-keys.sqlite'))
    const key = keys.create('export@example.org')
    keys.close()
    let rows = 0
    for (const job of fc.sample(exportJob, { numRuns: 60, seed: SEED }) as Array<Extract<SecurityJob, { kind: 'export' }>>) {
      const r = await fetch(exportServer.url + job.target, { headers: { 'x-api-key': key } })
      const text = await r.text()
      expect(r.status).toBeLessThan(500)
      if (r.status !== 200) continue
      rows += text.split('\r\n').length - 2
      expect(csvViolations(text, texts)).toEqual([])
    }
    expect(rows).toBeGreaterThan(1000)
  })
})
