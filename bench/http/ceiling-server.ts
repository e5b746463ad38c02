/**
 * The ceiling of the HTTP scenario: a bare Bun.serve answering pre-serialised bodies of the
 * same sizes as the service's answers, with no routing framework, key, limit or query.
 * Usage: bun bench/http/ceiling-server.ts PORT LIST_BODY_FILE HEALTH_BODY_FILE ETAG
 */
export {}

const [port, listFile, healthFile, etag] = process.argv.slice(2)
const list = await Bun.file(listFile).bytes()
const health = await Bun.file(healthFile).bytes()
const json = { 'content-type': 'application/json' }

const server = Bun.serve({
  hostname: '127.0.0.1',
  port: Number(port),
  fetch(req) {
    const path = req.url.slice(req.url.indexOf('/', 8))
    if (path === '/list') return new Response(list, { headers: { ...json, etag } })
    if (path === '/not-modified') return new Response(null, { status: 304, headers: { etag } })
    if (path === '/health') return new Response(health, { headers: json })
    return new Response('not found', { status: 404 })
  },
})
console.log(`ready ${server.port}`)
