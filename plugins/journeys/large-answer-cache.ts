import { LRUCache } from 'lru-cache'
import type { AppDeps } from '../../src/app-deps'
import { originFor } from '../../src/http/links'
import { urlFacts } from '../../src/http/url-facts'
import { textBound, type OnTurnover } from '../../src/query/cache/dropped-texts'
import { RESPONSE_CACHE_MAX_ENTRY_BYTES } from '../../src/query/cache/response-cache'

/**
 * Answers too large for the shared response cache (over RESPONSE_CACHE_MAX_ENTRY_BYTES, which
 * keeps one big text from evicting many small hot ones): whole-mission traverses, Spirit's
 * 8,528-point path as GeoJSON (about 1.5 MB, 12 ms to render). Kept here, few and bounded by
 * bytes, under the same key as the shared cache: index version + origin + canonical request key,
 * exactly what decides the answer. Journey and traverse texts carry no timestamp, so a kept text
 * is sent as it is. Only successes reach it (a thrown problem is never stored). The texts it drops
 * are collected as the shared cache's are (src/query/cache/dropped-texts.ts).
 */
export const LARGE_ANSWER_ENTRIES = 32
export const LARGE_ANSWER_MAX_BYTES = 64 * 1024 * 1024

export function largeAnswerCache(deps: AppDeps, onTurnover?: OnTurnover): (request: Request, answer: () => string) => string {
  if (deps.config.responseCacheEntries <= 0) return (_request, answer) => answer()
  const bound = textBound(LARGE_ANSWER_MAX_BYTES, (text: string, key) => text.length + key.length, onTurnover)
  const lru = new LRUCache<string, string>({ max: LARGE_ANSWER_ENTRIES, ...bound.options })
  return (request, answer) => {
    const key = deps.stores.forRequest(request).version + '\n' + originFor(request, deps.config) + '\n' + urlFacts(request.url).getKey()
    const kept = lru.get(key)
    if (kept !== undefined) return kept
    const text = answer()
    if (text.length > RESPONSE_CACHE_MAX_ENTRY_BYTES && text.length + key.length <= LARGE_ANSWER_MAX_BYTES) lru.set(key, text)
    return text
  }
}
