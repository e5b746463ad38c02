/**
 * A stand-in worker for app/supervisor.ts: says it started, and on SIGTERM writes LINES log lines
 * at once and exits as soon as they are handed to its pipe, so they are still in the pipe (not yet
 * read by the supervisor) when the supervisor learns the worker has exited.
 */
const LINES = 20_000
process.on('SIGTERM', () => {
  let out = ''
  for (let i = 0; i < LINES; i++) out += JSON.stringify({ event: 'worker.last-words', worker: process.env.MV_WORKER, i }) + '\n'
  out += JSON.stringify({ event: 'server.stopped', worker: process.env.MV_WORKER }) + '\n'
  process.stdout.write(out, () => process.exit(0))
})
setInterval(() => {}, 60_000)
// Started only once SIGTERM is handled: the supervisor forwards SIGTERM once every worker said so.
console.log(JSON.stringify({ event: 'server.started', port: Number(process.env.PORT), worker: process.env.MV_WORKER }))
