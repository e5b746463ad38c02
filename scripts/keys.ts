/**
 * API key administration (the interface's dashboard, as a CLI):
 *
 *   npm run keys -- create --email E [--hourly N] [--daily N] [--concurrent N]
 *   npm run keys -- regenerate --email E
 *   npm run keys -- revoke --email E
 *   npm run keys -- limits --email E [--hourly N|default] [--daily N|default] [--concurrent N|default]
 *   npm run keys -- list [--json]
 *
 * Options: --db PATH|postgres://URL (default KEYS_DB or data/keys.sqlite).
 * Addresses go through the service's one normaliser (src/keys/email-address.ts), as in the dashboard.
 * create and regenerate print the new key once, as the last line of stdout; it is never stored
 * (only its SHA-256) and cannot be shown again. list shows owners, dates, status and limits,
 * never key values. A running server sees every change at once (src/keys/key-store.ts).
 */
import { parseArgs } from 'node:util'
import { loadConfig } from '../src/config'
import { InvalidEmailError, normaliseEmail } from '../src/keys/email-address'
import { KeyStoreError, type KeyLimits } from '../src/keys/key-directory'
import { openKeyStore } from '../src/keys/open-key-store'

const USAGE = `usage: npm run keys -- <command> [options]
  create --email E [--hourly N] [--daily N] [--concurrent N]   new key for E (one per e-mail)
  regenerate --email E                                           replace E's key (the old one stops working)
  revoke --email E                                               E's key stops working
  limits --email E [--hourly N|default] [--daily N|default] [--concurrent N|default]
  list [--json]                                                  owners, dates, status (never keys)
options: --db PATH|URL   key file or postgres:// URL (default KEYS_DB or data/keys.sqlite)`

function die(message: string, code = 1): never {
  process.stderr.write(message + '\n')
  process.exit(code)
}

function limit(name: string, raw: string | undefined, allowDefault: boolean): number | null | undefined {
  if (raw === undefined) return undefined
  if (allowDefault && raw === 'default') return null
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || !Number.isSafeInteger(Number(raw))) die(`--${name} must be a positive integer${allowDefault ? ' or "default"' : ''}, got "${raw}"`)
  return Number(raw)
}

async function main(): Promise<void> {
  let parsed
  try {
    parsed = parseArgs({
      args: process.argv.slice(2),
      allowPositionals: true,
      options: {
        email: { type: 'string' },
        db: { type: 'string' },
        hourly: { type: 'string' },
        daily: { type: 'string' },
        concurrent: { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    })
  } catch (e) {
    die(`${(e as Error).message}\n${USAGE}`, 2)
  }
  const { values, positionals } = parsed
  const command = positionals[0]
  if (values.help || !command) die(USAGE, values.help ? 0 : 2)
  const db = values.db ?? loadConfig().keysDb
  const needEmail = (): string => {
    const raw = values.email ?? die(`${command} needs --email\n${USAGE}`, 2)
    try {
      return normaliseEmail(raw)
    } catch (e) {
      if (e instanceof InvalidEmailError) die(`error: --email is ${e.message}`, 2)
      throw e
    }
  }

  const store = await openKeyStore(db)
  try {
    switch (command) {
      case 'create': {
        const email = needEmail()
        const limits: KeyLimits = {}
        const h = limit('hourly', values.hourly, false)
        const d = limit('daily', values.daily, false)
        const c = limit('concurrent', values.concurrent, false)
        if (h) limits.hourly = h
        if (d) limits.daily = d
        if (c) limits.concurrent = c
        const key = await store.create(email, limits)
        console.log(`Created the API key of ${email}${Object.keys(limits).length ? ` with limits ${JSON.stringify(limits)}` : ''}.`)
        console.log('It is shown once only: store it now. Send it in the X-API-Key header.')
        console.log(key)
        break
      }
      case 'regenerate': {
        const email = needEmail()
        const key = await store.regenerate(email)
        console.log(`Regenerated the API key of ${email}; the old key no longer works.`)
        console.log('It is shown once only: store it now.')
        console.log(key)
        break
      }
      case 'revoke': {
        const email = needEmail()
        await store.revoke(email)
        console.log(`Revoked the API key of ${email}.`)
        break
      }
      case 'limits': {
        const email = needEmail()
        await store.setLimits(email, {
          hourly: limit('hourly', values.hourly, true),
          daily: limit('daily', values.daily, true),
          concurrent: limit('concurrent', values.concurrent, true),
        })
        const row = await store.keyOf(email)
        console.log(`Limits of ${email}: ${JSON.stringify(row?.limits ?? {})} (missing = configured default).`)
        break
      }
      case 'list': {
        const rows = await store.list()
        if (values.json) {
          console.log(JSON.stringify(rows, null, 2))
          break
        }
        if (rows.length === 0) {
          console.log('No keys.')
          break
        }
        const table = rows.map((r) => [r.email, r.status, r.created_at, r.updated_at, Object.entries(r.limits).map(([k, v]) => `${k}=${v}`).join(' ') || '-'])
        const head = ['email', 'status', 'created', 'updated', 'limits']
        const widths = head.map((h, i) => Math.max(h.length, ...table.map((r) => r[i]!.length)))
        for (const r of [head, ...table]) console.log(r.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd())
        break
      }
      default:
        die(`unknown command "${command}"\n${USAGE}`, 2)
    }
  } catch (e) {
    if (e instanceof KeyStoreError) die(`error: ${e.message}`)
    throw e
  } finally {
    await store.close()
  }
}

await main()
