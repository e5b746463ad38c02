import { createProgress } from '../progress'
import { feedSpec, type FeedRover, type FeedSpec } from './feed-spec'
import { readSavedPages, recoverStaging, replaceSol } from './feed-store'
import { loadState, lockPath, saveState, type FetchState, type RunState } from './fetch-state'
import { acquireLock } from './lock-file'
import { FetchFailed, PoliteClient, type PoliteOptions, type Validators } from './polite-client'
import { PageError, validateFeedPage, type PageImage } from './validate-feed-page'

/**
 * One fetch run for one rover: resolves the sol range, then for each sol fetches its pages
 * (conditionally where the last run got validators), validates them, and replaces the saved sol
 * when anything differs. Sols are the unit of progress: the state file records each completed
 * sol, so a killed run resumes where it stopped (fetch-state.ts).
 */

export type SolRange = { kind: 'sols'; min: number; max: number } | { kind: 'since'; sols: number }

export interface FetchOptions {
  rover: FeedRover
  feedDir: string
  baseUrl: string
  range: SolRange
  polite: PoliteOptions
  progress?: boolean
}

export interface FetchSummary {
  rover: FeedRover
  solMin: number
  solMax: number
  resumed: boolean
  sols: { total: number; changed: number; unchanged: number; empty: number; skipped: number; failed: number }
  pages: { fetched: number; notModified: number; saved: number }
  images: { new: number; changed: number; unchanged: number; removed: number; rejected: number; duplicates: number }
  requests: number
  retries: number
  retryAfterWaitS: number
  errors: string[]
  ms: number
}

/** More pages than this for one sol means the feed is misbehaving (20,000 images at 100 a page). */
const MAX_PAGES = 200

export async function fetchFeeds(opts: FetchOptions): Promise<FetchSummary> {
  const started = performance.now()
  const spec = feedSpec(opts.rover)
  const lock = acquireLock(lockPath(opts.feedDir, opts.rover))
  try {
    recoverStaging(opts.feedDir, opts.rover)
    const client = new PoliteClient(opts.polite)
    const state = loadState(opts.feedDir, opts.rover)
    const { min, max } = await resolveRange(client, spec, opts)
    const request = opts.range.kind === 'sols' ? `sols=${min}..${max}` : `since-sols=${opts.range.sols}`
    const prior = state.run
    const resumed = !!prior && !prior.finished && prior.request === request
    const run: RunState = resumed
      ? { ...prior!, solMin: Math.min(prior!.solMin, min), solMax: Math.max(prior!.solMax, max) }
      : { request, solMin: min, solMax: max, started: new Date().toISOString(), done: [] }
    state.run = run
    const s: FetchSummary = {
      rover: opts.rover,
      solMin: run.solMin,
      solMax: run.solMax,
      resumed,
      sols: { total: run.solMax - run.solMin + 1, changed: 0, unchanged: 0, empty: 0, skipped: 0, failed: 0 },
      pages: { fetched: 0, notModified: 0, saved: 0 },
      images: { new: 0, changed: 0, unchanged: 0, removed: 0, rejected: 0, duplicates: 0 },
      requests: 0,
      retries: 0,
      retryAfterWaitS: 0,
      errors: [],
      ms: 0,
    }
    const done = new Set(run.done)
    const bar = createProgress(opts.progress ?? false)
    for (let sol = run.solMin; sol <= run.solMax; sol++) {
      bar.update(sol - run.solMin, s.sols.total, `${opts.rover} sol ${sol}`)
      if (done.has(sol)) {
        s.sols.skipped++
        continue
      }
      try {
        await fetchSol(client, spec, opts, state, sol, s)
        run.done.push(sol)
      } catch (e) {
        if (!(e instanceof FetchFailed || e instanceof PageError)) throw e
        s.sols.failed++
        s.errors.push(`sol ${sol}: ${e.message}`)
      }
      saveState(opts.feedDir, state)
    }
    bar.done()
    // A run with failed sols stays open: the next run with the same request retries only those.
    if (s.sols.failed === 0) run.finished = new Date().toISOString()
    saveState(opts.feedDir, state)
    Object.assign(s, { requests: client.stats.requests, retries: client.stats.retries, retryAfterWaitS: client.stats.retryAfterWaitS })
    s.pages.notModified = client.stats.notModified
    s.ms = Math.round(performance.now() - started)
    return s
  } finally {
    lock.release()
  }
}

async function resolveRange(client: PoliteClient, spec: FeedSpec, opts: FetchOptions): Promise<{ min: number; max: number }> {
  if (opts.range.kind === 'sols') return { min: opts.range.min, max: opts.range.max }
  const res = await client.get(spec.latestUrl(opts.baseUrl), (text) => {
    let doc: unknown
    try {
      doc = JSON.parse(text)
    } catch (e) {
      throw new PageError(`latest-sol answer is not whole JSON (${(e as Error).message})`)
    }
    const sol = spec.latestSol(doc)
    if (sol === undefined || sol > spec.maxSol) throw new PageError('latest-sol answer names no sol in range')
    return sol
  })
  if (res.status !== 200) throw new FetchFailed('latest-sol answer was not a page')
  return { min: Math.max(0, res.value - opts.range.sols + 1), max: res.value }
}

interface FetchedPage {
  doc: Record<string, unknown>
  validators: Validators
}

interface SolPages {
  pages: FetchedPage[]
  /** id → digest of every image kept, first occurrence wins. */
  seen: Map<string, string>
  rejected: string[]
  duplicates: number
  /** The image count each page stated. */
  totals: Array<number | undefined>
}

/** Reads a sol's pages in order, conditionally where `known` validators apply to the saved pages. */
async function readPages(client: PoliteClient, spec: FeedSpec, opts: FetchOptions, sol: number, saved: Array<Record<string, unknown>> | undefined, known: FetchState['sols'][string] | undefined, s: FetchSummary): Promise<SolPages> {
  const out: SolPages = { pages: [], seen: new Map(), rejected: [], duplicates: 0, totals: [] }
  // Conditional requests only when the saved pages are the ones the validators were given for.
  const conditional = !!saved && !!known && saved.length === known.pages.length && saved.length > 0
  let raw = 0
  for (let p = 0; ; p++) {
    if (p >= MAX_PAGES) throw new PageError(`more than ${MAX_PAGES} pages`)
    const cond = conditional ? known!.pages[p] : undefined
    const res = await client.get(spec.pageUrl(opts.baseUrl, sol, p), (text) => validateFeedPage(text, spec, sol), cond?.etag || cond?.lastModified ? cond : undefined)
    let doc: Record<string, unknown>
    let images: PageImage[]
    let validators: Validators
    let records: number
    if (res.status === 304) {
      doc = saved![p]!
      images = validateFeedPage(JSON.stringify(doc), spec, sol).images
      validators = cond!
      records = (doc[spec.listKey] as unknown[]).length
    } else {
      s.pages.fetched++
      doc = res.value.doc
      images = res.value.images
      validators = res.validators
      records = res.value.records
      for (const r of res.value.rejected) out.rejected.push(`sol ${sol} page ${p}: record ${r.id ?? '(no id)'} left out: ${r.why}`)
    }
    raw += records
    out.totals.push(spec.total(doc))
    // New images shift the others to later pages while we read: an id already seen is dropped.
    const list = doc[spec.listKey] as unknown[]
    const keep = list.filter((_, i) => !out.seen.has(images[i]!.id))
    out.duplicates += list.length - keep.length
    for (const img of images) if (!out.seen.has(img.id)) out.seen.set(img.id, img.digest)
    out.pages.push({ doc: keep.length === list.length ? doc : { ...doc, [spec.listKey]: keep }, validators })
    if (!spec.hasMore(doc, records, raw)) break
  }
  return out
}

/**
 * Why a sol's pages do not add up, or undefined when they do: the pages stated different totals
 * (the sol changed while it was read, so an image may have slipped between two pages), or the
 * images read are fewer or more than the total stated.
 */
function inconsistency(r: SolPages): { shifting: boolean; why: string } | undefined {
  const stated = r.totals.filter((t): t is number => t !== undefined)
  if (stated.length === 0) return undefined
  if (stated.some((t) => t !== stated[0])) return { shifting: true, why: `the feed changed while its pages were read (totals ${[...new Set(stated)].join(', ')})` }
  const got = r.seen.size + r.rejected.length
  return got === stated[0] ? undefined : { shifting: false, why: `the feed states ${stated[0]} images, its pages held ${got}` }
}

/** Fetches one sol's pages and saves them when they differ from what is saved. */
async function fetchSol(client: PoliteClient, spec: FeedSpec, opts: FetchOptions, state: FetchState, sol: number, s: FetchSummary): Promise<void> {
  const feedDir = opts.feedDir
  const saved = readSavedPages(feedDir, spec, sol)
  const before = new Map<string, string>()
  for (const doc of saved ?? []) for (const img of validateFeedPage(JSON.stringify(doc), spec, sol).images) before.set(img.id, img.digest)

  let read = await readPages(client, spec, opts, sol, saved, state.sols[sol], s)
  const odd = inconsistency(read)
  if (odd) {
    // Once more from the first page, unconditionally: a sol that changed under us settles.
    read = await readPages(client, spec, opts, sol, saved, undefined, s)
    const still = inconsistency(read)
    if (still?.shifting) throw new PageError(still.why)
    if (still) s.errors.push(`sol ${sol}: ${still.why}; saved as read`)
  }
  const { pages, seen } = read
  s.images.rejected += read.rejected.length
  s.images.duplicates += read.duplicates
  for (const e of read.rejected) if (s.errors.length < 50) s.errors.push(e)
  if (seen.size === 0 && before.size > 0) {
    throw new PageError(`the feed answered no images for a sol that has ${before.size} saved; keeping them`)
  }
  let added = 0
  let changed = 0
  for (const [id, digest] of seen) {
    const old = before.get(id)
    if (old === undefined) added++
    else if (old !== digest) changed++
  }
  const removed = [...before.keys()].filter((id) => !seen.has(id)).length
  s.images.new += added
  s.images.changed += changed
  s.images.unchanged += seen.size - added - changed
  s.images.removed += removed
  const same = !!saved && saved.length === pages.length && pages.every((pg, i) => JSON.stringify(pg.doc) === JSON.stringify(saved[i]))
  if (seen.size === 0 && (saved?.length ?? 0) === 0) s.sols.empty++
  else if (same) s.sols.unchanged++
  else {
    replaceSol(feedDir, spec.rover, sol, pages.map((pg) => pg.doc))
    s.pages.saved += pages.length
    s.sols.changed++
  }
  if (seen.size > 0) state.sols[sol] = { pages: pages.map((pg) => pg.validators), images: seen.size, fetchedAt: new Date().toISOString() }
}
