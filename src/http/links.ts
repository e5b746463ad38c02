import type { Config } from '../config'
import { urlFacts } from './url-facts'

/**
 * Absolute origin for links (decisions.md: links are absolute; behind a proxy,
 * X-Forwarded-Proto / X-Forwarded-Host are honoured when the operator enables TRUST_PROXY).
 */
export function origin(request: Request, config: Pick<Config, 'trustProxy'>): string {
  const url = new URL(request.url)
  if (config.trustProxy) {
    const proto = firstToken(request.headers.get('x-forwarded-proto'))
    const host = firstToken(request.headers.get('x-forwarded-host'))
    if (proto && /^https?$/i.test(proto)) url.protocol = proto.toLowerCase() + ':'
    if (host && /^[A-Za-z0-9.\-:[\]]+$/.test(host)) url.host = host
  }
  return `${url.protocol}//${url.host}`
}

/**
 * origin(), memoised per URL when the proxy headers are not trusted (then the URL alone decides
 * it): saves a new URL() per request on the hot path (./url-facts.ts).
 */
export function originFor(request: Request, config: Pick<Config, 'trustProxy'>): string {
  return config.trustProxy ? origin(request, config) : urlFacts(request.url).urlOrigin()
}

function firstToken(v: string | null): string | undefined {
  if (!v) return undefined
  const t = v.split(',')[0]!.trim()
  return t || undefined
}

/**
 * Absolute link to `path` keeping every query parameter of `params` in order, with `set`
 * overriding or adding values (undefined removes a parameter). `api_key` (any case) is never
 * carried over: a key sent in the URL must not come back in an answer (decisions.md, Keys in the URL).
 */
export function link(base: string, path: string, params: URLSearchParams, set: Record<string, string | number | undefined> = {}): string {
  const out = new URLSearchParams()
  for (const [k, v] of params) if (!(k in set) && k.toLowerCase() !== 'api_key') out.append(k, v)
  for (const [k, v] of Object.entries(set)) if (v !== undefined) out.set(k, String(v))
  const qs = out.toString()
  return qs ? `${base}${path}?${qs}` : `${base}${path}`
}
