import { isCredentialParam } from './request-key'
import type { Config } from '../config'
import { urlFacts } from './url-facts'

/**
 * Absolute origin for the API's links (decisions.md: links are absolute). The request decides it
 * only as far as the operator allows: PUBLIC_URL, when set, is the origin of every link whatever
 * the request says; otherwise the request's Host, and behind a proxy X-Forwarded-Proto /
 * X-Forwarded-Host when the operator enables TRUST_PROXY (the proxy must then set or delete them
 * itself, as deploy/haproxy-config.ts does). Mailed links never come from here
 * (./public-origin.ts).
 */
export function origin(request: Request, config: Pick<Config, 'trustProxy' | 'publicUrl'>): string {
  return config.publicUrl ?? requestOrigin(request, config)
}

/** The origin the request itself names (Host, or with TRUST_PROXY the proxy's forwarded headers), PUBLIC_URL aside. */
export function requestOrigin(request: Request, config: Pick<Config, 'trustProxy'>): string {
  if (!config.trustProxy) return urlFacts(request.url).urlOrigin()
  const url = new URL(request.url)
  const proto = firstToken(request.headers.get('x-forwarded-proto'))
  const host = firstToken(request.headers.get('x-forwarded-host'))
  if (proto && /^https?$/i.test(proto)) url.protocol = proto.toLowerCase() + ':'
  if (host && /^[A-Za-z0-9.\-:[\]]+$/.test(host)) url.host = host
  return `${url.protocol}//${url.host}`
}

/** origin() under the name the hot path imports (the URL alone is memoised, ./url-facts.ts). */
export const originFor = origin

function firstToken(v: string | null): string | undefined {
  if (!v) return undefined
  const t = v.split(',')[0]!.trim()
  return t || undefined
}

/**
 * Absolute link to `path` keeping every query parameter of `params` in order, with `set`
 * overriding or adding values (undefined removes a parameter). `api_key` (any case) is never
 * carried over, nor `feed_token` (isCredentialParam): a credential sent in the URL must not come back in an answer (decisions.md, Keys in the URL).
 */
export function link(base: string, path: string, params: URLSearchParams, set: Record<string, string | number | undefined> = {}): string {
  const out = new URLSearchParams()
  for (const [k, v] of params) if (!(k in set) && linkCarries(k)) out.append(k, v)
  for (const [k, v] of Object.entries(set)) if (v !== undefined) out.set(k, String(v))
  const qs = out.toString()
  return qs ? `${base}${path}?${qs}` : `${base}${path}`
}

/** Whether a request's parameter may be carried into a link: every one but a credential (isCredentialParam). */
export function linkCarries(name: string): boolean {
  return !isCredentialParam(name)
}
