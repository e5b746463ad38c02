/**
 * Server-Sent Events framing (HTML Living Standard, "Server-sent events" §9.2.5): a `photo`
 * event carries one photo's JSON (one line: the writer emits no newline) with its ledger position
 * as `id:`, so a reconnecting EventSource sends it back as Last-Event-ID; a comment line keeps
 * idle connections (and the proxies between) open.
 */
export const SSE_MEDIA_TYPE = 'text/event-stream'

/** The photo stream's path. */
export const STREAM_PATH = '/api/v2/photos/stream'

export function photoEvent(position: number, json: string): string {
  return `id: ${position}\nevent: photo\ndata: ${json}\n\n`
}

export function heartbeat(): string {
  return ': heartbeat\n\n'
}

/** The stream's end for a reason the client should see (then the connection closes). */
export function endEvent(reason: string): string {
  return `event: end\ndata: ${JSON.stringify({ reason })}\n\n`
}

/** Photos delivered per request charged (docs/follow-new-photos.md). */
export const PHOTOS_PER_CHARGE = 100
