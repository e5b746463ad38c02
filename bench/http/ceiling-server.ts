/**
 * The ceiling of the HTTP scenario: a bare Bun.serve answering prepared answers, with no
 * routing framework, key, limit or query. Each answer (status, header fields in order, body
 * bytes) is given in a JSON file the bench writes from the service's own answers
 * (bench/http.ts), so the ceiling sends the same bytes the service does; per request it only
 * picks the answer by path. No header of the request is read.
 * Usage: bun bench/http/ceiling-server.ts PORT ANSWERS_FILE
 * ANSWERS_FILE: { "<path>": { "status": 200, "headers": [["name", "value"], ...], "body": "<base64>" | null } }
 */
import type { CeilingAnswer } from './raw-answer'

const [port, answersFile] = process.argv.slice(2)
const spec = (await Bun.file(answersFile!).json()) as Record<string, CeilingAnswer>
const answers = new Map<string, { body: Uint8Array | null; init: { status: number; headers: Headers } }>()
for (const [path, a] of Object.entries(spec)) {
  const headers = new Headers()
  for (const [k, v] of a.headers) headers.append(k, v)
  answers.set(path, { body: a.body === null ? null : new Uint8Array(Buffer.from(a.body, 'base64')), init: { status: a.status, headers } })
}

const server = Bun.serve({
  hostname: '127.0.0.1',
  port: Number(port),
  fetch(req) {
    const a = answers.get(req.url.slice(req.url.indexOf('/', 8)))
    if (a === undefined) return new Response('not found', { status: 404 })
    return new Response(a.body, a.init)
  },
})
console.log(`ready ${server.port}`)
