import { feedSpec, type FeedRover, type FeedSpec } from './feed-spec'
import { readSavedPage, recoverStaging, savedPageFiles, StagedSol } from './feed-store'
import { DEFAULT_CAPS, formatBytes, type FetchCaps } from './fetch-caps'
import { createFetchProgress } from './fetch-progress'
import { loadState, lockPath, saveState, type FetchState, type RunState } from './fetch-state'
import { acquireLock } from './lock-file'
import { FetchFailed, PoliteClient, type PoliteOptions, type Validators } from './polite-client'
import { PageError, validateFeedPage, type PageImage } from './validate-feed-page'

/**
 * One fetch run for one rover: resolves the sol range, then for each sol fetches its pages
 * (conditionally where the last run got validators), validates them, and replaces the saved sol
 * when anything differs. Sols are the unit of progress: the state file records each completed
 * sol, so a killed run resumes where it stopped (fetch-state.ts).
 *
 * Pages go to disk as they arrive (feed-store.ts `StagedSol`): what a sol holds in memory is one
 * page and the ids read so far, whatever the sol's size. The caps (fetch-caps.ts) bound a sol and
 * a run; `all` walks every sol from 0 to the feed's newest in chunks under the run cap, one after
 * another, resumable like any run.
 */

export type SolRange = { kind: 'sols'; min: number; max: number } | { kind: 'since'; sols: number } | { kind: 'all' }

export interface FetchOptions {
  rover: FeedRover
  feedDir: string
  baseUrl: string
  range: SolRange
  polite: PoliteOptions
  caps?: FetchCaps
  progress?: boolean
  /** Where the progress bar is drawn (default stderr). */
  progressOut?: { write(s: string): unknown }
}

export interface FetchSummary {
  rover: FeedRover
  solMin: number
  solMax: number
  resumed: boolean
  sols: { total: number; changed: number; unchanged: number; empty: number; skipped: number; failed: number; refused: number; left: number }
  pages: { fetched: number; notModified: number; saved: number }
  images: { new: number; changed: number; unchanged: number; removed: number; rejected: number; duplicates: number }
  /** Page bytes read this run (received, or saved pages a 304 confirmed). */
  bytes: number
  caps: FetchCaps
  /** Chunks of sols under the run cap this invocation went through (1 unless `all` passed the cap). */
  chunks: number
  /** Why the run stopped before its last sol (the run cap), or absent when it went to the end. */
  stopped?: string
  requests: number
  retries: number
  retryAfterWaitS: number
  errors: string[]
  ms: number
}

/** More pages than this for one sol means the feed is misbehaving (20,000 images at 100 a page). */
const MAX_PAGES = 200

/** A sol over one of its caps: refused whole, not tried again in this run. */
export class SolRefused extends Error {}

export async function fetchFeeds(opts: FetchOptions): Promise<FetchSummary> {
  const started = performance.now()
  const spec = feedSpec(opts.rover)
  const caps = opts.caps ?? DEFAULT_CAPS
  const lock = acquireLock(lockPath(opts.feedDir, opts.rover))
  try {
    recoverStaging(opts.feedDir, opts.rover)
    const client = new PoliteClient(opts.polite)
    const state = loadState(opts.feedDir, opts.rover)
    const { min, max } = await resolveRange(client, spec, opts)
    const request = opts.range.kind === 'sols' ? `sols=${min}..${max}` : opts.range.kind === 'all' ? 'all' : `since-sols=${opts.range.sols}`
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
      sols: { total: run.solMax - run.solMin + 1, changed: 0, unchanged: 0, empty: 0, skipped: 0, failed: 0, refused: 0, left: 0 },
      pages: { fetched: 0, notModified: 0, saved: 0 },
      images: { new: 0, changed: 0, unchanged: 0, removed: 0, rejected: 0, duplicates: 0 },
      bytes: 0,
      caps,
      chunks: 1,
      requests: 0,
      retries: 0,
      retryAfterWaitS: 0,
      errors: [],
      ms: 0,
    }
    const done = new Set(run.done)
    const bar = createFetchProgress(opts.progress ?? false, opts.progressOut)
    const toDo = s.sols.total - [...done].filter((d) => d >= run.solMin && d <= run.solMax).length
    let worked = 0
    let chunkBytes = 0
    for (let sol = run.solMin; sol <= run.solMax; sol++) {
      if (done.has(sol)) {
        s.sols.skipped++
        continue
      }
      if (chunkBytes >= caps.runBytes) {
        if (opts.range.kind !== 'all') {
          s.stopped = `stopped at the run cap of ${formatBytes(caps.runBytes)} (--max-run-bytes, FETCH_MAX_RUN_BYTES) before sol ${sol}; the same command again goes on from there`
          s.sols.left = run.solMax - sol + 1 - [...done].filter((d) => d >= sol).length
          break
        }
        // A chunk ends here; its sols are in the state file, so a kill from now on resumes after them.
        s.chunks++
        chunkBytes = 0
      }
      bar.update(worked, toDo, `${opts.rover} sol ${sol}`)
      const before = s.bytes
      try {
        await fetchSol(client, spec, opts, caps, state, sol, s)
        run.done.push(sol)
      } catch (e) {
        if (!(e instanceof FetchFailed || e instanceof PageError || e instanceof SolRefused)) throw e
        s.sols.failed++
        if (e instanceof SolRefused) s.sols.refused++
        s.errors.push(`sol ${sol}: ${e.message}`)
      }
      chunkBytes += s.bytes - before
      worked++
      saveState(opts.feedDir, state)
    }
    bar.update(worked, toDo, `${opts.rover} done`)
    bar.done()
    // A run with failed or unfetched sols stays open: the next run with the same request does only those.
    if (s.sols.failed === 0 && !s.stopped) run.finished = new Date().toISOString()
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
  if (opts.range.kind === 'all') return { min: 0, max: res.value }
  return { min: Math.max(0, res.value - opts.range.sols + 1), max: res.value }
}

/** What is saved of a sol: its page files, each one's digest, and the id → digest of its images. */
interface SavedSol {
  files: string[]
  digests: string[]
  images: Map<string, string>
}

/** The saved sol, read one page at a time; undefined when some page of it is missing or unreadable. */
function readSavedSol(feedDir: string, spec: FeedSpec, sol: number): SavedSol | undefined {
  const files = savedPageFiles(feedDir, spec.rover, sol)
  if (!files) return undefined
  const out: SavedSol = { files, digests: [], images: new Map() }
  for (const f of files) {
    const page = readSavedPage(f, spec)
    if (!page) return undefined
    out.digests.push(String(Bun.hash(page.text)))
    for (const img of validateFeedPage(page.text, spec, sol).images) out.images.set(img.id, img.digest)
  }
  return out
}

interface SolRead {
  staged: StagedSol
  /** Digest of each staged page's text. */
  digests: string[]
  validators: Validators[]
  /** id → digest of every image kept, first occurrence wins. */
  seen: Map<string, string>
  rejected: string[]
  duplicates: number
  /** The image count each page stated. */
  totals: Array<number | undefined>
  /** Bytes and records of the pages as read (rejected records included): what the sol caps count. */
  bytes: number
  records: number
}

/**
 * Reads a sol's pages in order, conditionally where `known` validators apply to the saved pages,
 * staging each on disk as it comes. Over a cap, the staged pages are deleted and SolRefused thrown.
 */
async function readPages(client: PoliteClient, spec: FeedSpec, opts: FetchOptions, caps: FetchCaps, sol: number, saved: SavedSol | undefined, known: FetchState['sols'][string] | undefined, s: FetchSummary): Promise<SolRead> {
  const out: SolRead = { staged: new StagedSol(opts.feedDir, spec.rover, sol), digests: [], validators: [], seen: new Map(), rejected: [], duplicates: 0, totals: [], bytes: 0, records: 0 }
  try {
    // Conditional requests only when the saved pages are the ones the validators were given for.
    const conditional = !!saved && !!known && saved.files.length === known.pages.length && saved.files.length > 0
    for (let p = 0; ; p++) {
      if (p >= MAX_PAGES) throw new PageError(`more than ${MAX_PAGES} pages`)
      const cond = conditional ? known!.pages[p] : undefined
      const res = await client.get(spec.pageUrl(opts.baseUrl, sol, p), (text) => ({ ...validateFeedPage(text, spec, sol), bytes: Buffer.byteLength(text) }), cond?.etag || cond?.lastModified ? cond : undefined)
      let doc: Record<string, unknown>
      let images: PageImage[]
      let validators: Validators
      let records: number
      let bytes: number
      if (res.status === 304) {
        const page = readSavedPage(saved!.files[p]!, spec)
        if (!page) throw new PageError(`saved page ${p} became unreadable`)
        doc = page.doc
        images = validateFeedPage(page.text, spec, sol).images
        validators = cond!
        records = (doc[spec.listKey] as unknown[]).length
        bytes = Buffer.byteLength(page.text)
      } else {
        s.pages.fetched++
        ;({ doc, images, records, bytes } = res.value)
        validators = res.validators
        for (const r of res.value.rejected) out.rejected.push(`sol ${sol} page ${p}: record ${r.id ?? '(no id)'} left out: ${r.why}`)
      }
      out.bytes += bytes
      out.records += records
      s.bytes += bytes
      if (out.bytes > caps.solBytes) throw new SolRefused(`refused whole, nothing of it saved: its pages pass the cap of ${formatBytes(caps.solBytes)} a sol (--max-sol-bytes, FETCH_MAX_SOL_BYTES) at page ${p}`)
      if (out.records > caps.solRecords) throw new SolRefused(`refused whole, nothing of it saved: its pages pass the cap of ${caps.solRecords.toLocaleString('en-US')} records a sol (--max-sol-records, FETCH_MAX_SOL_RECORDS) at page ${p}`)
      out.totals.push(spec.total(doc))
      // New images shift the others to later pages while we read: an id already seen is dropped.
      const list = doc[spec.listKey] as unknown[]
      const keep = list.filter((_, i) => !out.seen.has(images[i]!.id))
      out.duplicates += list.length - keep.length
      for (const img of images) if (!out.seen.has(img.id)) out.seen.set(img.id, img.digest)
      out.digests.push(out.staged.add(JSON.stringify(keep.length === list.length ? doc : { ...doc, [spec.listKey]: keep })))
      out.validators.push(validators)
      if (!spec.hasMore(doc, records, out.records)) break
    }
    return out
  } catch (e) {
    out.staged.discard()
    throw e
  }
}

/**
 * Why a sol's pages do not add up, or undefined when they do: the pages stated different totals
 * (the sol changed while it was read, so an image may have slipped between two pages), or the
 * images read are fewer or more than the total stated.
 */
function inconsistency(r: SolRead): { shifting: boolean; why: string } | undefined {
  const stated = r.totals.filter((t): t is number => t !== undefined)
  if (stated.length === 0) return undefined
  if (stated.some((t) => t !== stated[0])) return { shifting: true, why: `the feed changed while its pages were read (totals ${[...new Set(stated)].join(', ')})` }
  const got = r.seen.size + r.rejected.length
  return got === stated[0] ? undefined : { shifting: false, why: `the feed states ${stated[0]} images, its pages held ${got}` }
}

/** Fetches one sol's pages and saves them when they differ from what is saved. */
async function fetchSol(client: PoliteClient, spec: FeedSpec, opts: FetchOptions, caps: FetchCaps, state: FetchState, sol: number, s: FetchSummary): Promise<void> {
  const saved = readSavedSol(opts.feedDir, spec, sol)
  const before = saved?.images ?? new Map<string, string>()

  let read = await readPages(client, spec, opts, caps, sol, saved, state.sols[sol], s)
  const odd = inconsistency(read)
  if (odd) {
    // Once more from the first page, unconditionally: a sol that changed under us settles.
    read.staged.discard()
    read = await readPages(client, spec, opts, caps, sol, saved, undefined, s)
    const still = inconsistency(read)
    if (still?.shifting) {
      read.staged.discard()
      throw new PageError(still.why)
    }
    if (still) s.errors.push(`sol ${sol}: ${still.why}; saved as read`)
  }
  const { seen } = read
  s.images.rejected += read.rejected.length
  s.images.duplicates += read.duplicates
  for (const e of read.rejected) if (s.errors.length < 50) s.errors.push(e)
  if (seen.size === 0 && before.size > 0) {
    read.staged.discard()
    throw new PageError(`the feed answered no images for a sol that has ${before.size} saved; keeping them`)
  }
  let added = 0
  let changed = 0
  for (const [id, digest] of seen) {
    const old = before.get(id)
    if (old === undefined) added++
    else if (old !== digest) changed++
  }
  let removed = 0
  for (const id of before.keys()) if (!seen.has(id)) removed++
  s.images.new += added
  s.images.changed += changed
  s.images.unchanged += seen.size - added - changed
  s.images.removed += removed
  const same = !!saved && saved.digests.length === read.digests.length && read.digests.every((d, i) => d === saved.digests[i])
  if (seen.size === 0 && (saved?.files.length ?? 0) === 0) {
    s.sols.empty++
    read.staged.discard()
  } else if (same) {
    s.sols.unchanged++
    read.staged.discard()
  } else {
    read.staged.commit()
    s.pages.saved += read.digests.length
    s.sols.changed++
  }
  if (seen.size > 0) state.sols[sol] = { pages: read.validators, images: seen.size, fetchedAt: new Date().toISOString() }
}

