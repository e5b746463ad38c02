import { ArrowRows } from './arrow-rows'
import { ByteOut } from './byte-out'
import { CsvRows } from './csv-rows'
import { exportColumns } from './export-columns'
import type { ExportPlan } from './export-plan'
import { JsonRows } from './json-rows'
import type { RowWriter } from './row-writer'

export type ExportOutcome = 'complete' | 'cancelled' | 'timeout' | 'failed'

export interface ExportStreamOptions {
  /** The client went away (Request.signal): stop at once. */
  signal?: AbortSignal
  /** After this long the stream ends with an error row (text) or is aborted (Arrow). */
  timeoutMs: number
  /** Rows per chunk (text) or record batch (Arrow); default CHUNK_ROWS / ARROW_BATCH_ROWS. */
  chunkRows?: number
  /** Called now and then while the stream runs (keeps the in-flight slot from being taken for leaked). */
  renew?: (nowMs: number) => void
  /** Called once when the stream ends, however it ends, with the rows handed to the client. */
  onEnd: (outcome: ExportOutcome, rows: number) => void
}

/** Rows produced by every export of this process (tests prove with it that a cancelled export stops). */
export const exportCounters = { rowsProduced: 0, running: 0 }

/**
 * Rows per chunk of a text export: a chunk is rendered into one reusable buffer and written to
 * the response as one piece. A few hundred KB (512 NDJSON photos ~430 KB, CSV records ~270 KB)
 * cost less server CPU per row than 2,048-row chunks of ~1.7 MB: the buffer stays in cache while
 * the socket copies it, and the sink keeps less of it back.
 */
export const CHUNK_ROWS = 512
/**
 * Rows per Arrow record batch: each batch costs its metadata and one pass per column, so
 * batches are larger than text chunks; in the default order most of a batch's bytes are slices
 * of the store's own columns and take no memory of their own.
 */
export const ARROW_BATCH_ROWS = 8192

const RENEW_EVERY_MS = 20_000
/** After the deadline, how long the error row may take to reach a slow client before the connection is cut. */
const FAILURE_GRACE_MS = 2_000

/** Bun's direct stream controller (ReadableStream `type: "direct"`): write() copies what the sink cannot send at once. */
interface DirectController {
  write(data: Uint8Array | string): number | Promise<number>
  close(error?: Error): void
}

/**
 * The body of an export as a direct stream (Bun's ReadableStream `type: "direct"`): one loop
 * renders a chunk of rows into a reusable buffer, writes it, and waits whenever the sink says
 * it is full (write returns a promise), so a slow client holds the export at its socket's pace
 * with at most a chunk or two ahead in memory, and nothing is allocated per row. Rows come from
 * the plan's pinned snapshot (a reload mid-stream changes nothing; the snapshot is let go when
 * the stream ends). A cancel (client gone) or an abort of the request stops it before the next
 * chunk. At the deadline a text stream gets its failure row and is then errored, so the client
 * never takes a cut export for a whole one; an Arrow stream is errored (its reader sees no
 * end-of-stream marker).
 */
export function exportStream(plan: ExportPlan, opts: ExportStreamOptions): ReadableStream<Uint8Array> {
  // Only these reach the snapshot; end() drops them, so a finished stream pins no old index.
  let source: ExportPlan['rows'] | undefined = plan.rows
  let writer: RowWriter | undefined = plan.format === 'arrow' ? new ArrowRows(plan.store.photos, exportColumns(plan.store.photos, plan.output))
    : plan.format === 'csv' ? new CsvRows(plan.store, plan.output)
    : new JsonRows(plan.store, plan.output, plan.format === 'ndjson')
  const failureOf = writer.failure.bind(writer)
  const total = plan.count
  const size = Math.max(1, opts.chunkRows ?? (plan.format === 'arrow' ? ARROW_BATCH_ROWS : CHUNK_ROWS))
  const chunk = new Int32Array(Math.min(size, Math.max(1, total)))
  const out = new ByteOut()
  let pos = 0
  let state: 'waiting' | 'running' | 'ended' = 'waiting'
  let lastRenew = Date.now()
  let controller: DirectController | undefined
  let deadline: ReturnType<typeof setTimeout> | undefined
  let grace: ReturnType<typeof setTimeout> | undefined

  // Settles when the stream ends, so a loop waiting on a sink that will never drain (its client
  // is gone) lets go of the writer and with it the snapshot.
  let wake = () => {}
  const stopped = new Promise<void>((resolve) => (wake = resolve))

  exportCounters.running++
  const end = (outcome: ExportOutcome) => {
    if (state === 'ended') return
    state = 'ended'
    wake()
    source = undefined
    writer = undefined
    clearTimeout(deadline)
    opts.signal?.removeEventListener('abort', onAbort)
    exportCounters.running--
    opts.onEnd(outcome, pos)
  }
  const fail = (error: Error, outcome: ExportOutcome) => {
    end(outcome)
    try {
      controller?.close(error)
    } catch {}
  }
  const onAbort = () => fail(new Error('client went away'), 'cancelled')
  opts.signal?.addEventListener('abort', onAbort)

  const onDeadline = () => {
    if (state === 'ended') return
    const detail = `The export stopped after ${opts.timeoutMs / 1000} s (EXPORT_TIMEOUT_S), having written ${pos} of ${total} rows.`
    const failure = failureOf(detail)
    if (failure === undefined || !controller) return fail(new Error(detail), 'timeout')
    end('timeout') // the snapshot is let go now; only the failure row is left to send
    try {
      void controller.write(failure)
    } catch {}
    const c = controller
    grace = setTimeout(() => {
      try {
        c.close(new Error(detail))
      } catch {}
    }, FAILURE_GRACE_MS)
    grace.unref?.()
  }

  const run = async (c: DirectController) => {
    const w = writer!
    // Bun's HTTP response sink copies what the socket does not take at once, so the buffer can
    // be reused for the next chunk right away (no allocation per chunk); any other consumer
    // (a body read in process) gets copies, since Response#text keeps the bytes it is given.
    const copies = !/HTTPS?ResponseSink/.test(Object.prototype.toString.call(c))
    w.start(out)
    while (state === 'running') {
      const now = Date.now()
      if (opts.renew && now - lastRenew >= RENEW_EVERY_MS) {
        lastRenew = now
        opts.renew(now)
      }
      const n = pos < total ? source!.next(chunk) : 0
      if (n > 0) {
        w.rows(out, chunk, n)
        pos += n
        exportCounters.rowsProduced += n
      }
      const last = n === 0 || pos >= total
      if (last) w.end(out)
      const written = out.drain((bytes) => c.write(bytes), copies)
      if (last) {
        end('complete')
        c.close()
        return
      }
      // Backpressure: the sink is full until this settles.
      if (written instanceof Promise) await Promise.race([written, stopped])
    }
  }

  return new ReadableStream({
    type: 'direct',
    pull(c: DirectController) {
      // A reader calls pull again after each settled call; the one loop started here serves them all.
      if (state !== 'waiting') return
      controller = c
      if (opts.signal?.aborted) return onAbort()
      state = 'running'
      deadline = setTimeout(onDeadline, opts.timeoutMs)
      return run(c).catch((e) => fail(e instanceof Error ? e : new Error(String(e)), 'failed'))
    },
    cancel() {
      end('cancelled')
    },
  } as unknown as ConstructorParameters<typeof ReadableStream<Uint8Array>>[0])
}
