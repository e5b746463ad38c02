/**
 * npm run container-test: the compose stack built and run here, as an operator would run it.
 *
 * 1. Installs from Debian what is missing (podman, podman-compose, runc, debootstrap) and writes
 *    the CONTAINERS_CONF these sandboxes need (deploy/containers/podman.ts).
 * 2. Makes the local Debian base image with debootstrap (once; reused by later runs) and builds
 *    the four images on it (deploy/containers/build-images.ts), tagged with package.json's version.
 * 3. `podman-compose up` of compose.yaml, HAProxy published on a free loopback port, no SMTP_URL
 *    (sign-in links in the instances' logs), the update job's interval a day (run once by hand in 6).
 * 4. Checks, every request on loopback:
 *    - /health answers 200 through HAProxy (the time from `compose up` is measured by polling it:
 *      podman runs HEALTHCHECKs from systemd timers, which these sandboxes lack);
 *    - a key made through the dashboard (sign in, link from the log, create) answers 200 through
 *      HAProxy, and each instance's access log shows it answered some of those requests;
 *    - an index update (the update job's command, run once in the service image against a
 *      stand-in for NASA's feeds on loopback, test/support/feed-replay-server.ts) publishes a new
 *      version into the shared volume and every worker of every instance swaps it in;
 *    - SIGTERM (`podman-compose stop`) stops every container with exit code 0 before its grace
 *      period, the instances after draining.
 * Ends with one line: `container-test: N instances healthy behind HAProxy; key works on each;
 * update reached each; image <tag> <size> MB; healthy <s> s after compose up`. Exit 1 on a failed check.
 */
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { ensureLocalBaseImage } from '../deploy/containers/base-image'
import { buildImages, composeInstances, IMAGES } from '../deploy/containers/build-images'
import { ensureDebianPackages, podmanEnv, run } from '../deploy/containers/podman'
import { FormClient, formFields } from '../test/setup/dashboard-app'
import { FeedReplayServer } from '../test/support/feed-replay-server'

const ROOT = join(import.meta.dir, '..')
const PROJECT = 'marsct'
const WORKERS = 2
const KEY = /mv_live_[0-9a-f]{40}/
const started = performance.now()
const log = (line: string) => process.stderr.write(`container-test [${((performance.now() - started) / 1000).toFixed(0)} s] ${line}\n`)

class CheckFailed extends Error {}
function check(ok: boolean, what: string): void {
  if (!ok) throw new CheckFailed(what)
}

async function until<T>(what: string, seconds: number, probe: () => Promise<T | undefined | false>): Promise<T> {
  const deadline = performance.now() + seconds * 1000
  for (;;) {
    const v = await probe().catch(() => undefined)
    if (v) return v
    if (performance.now() > deadline) throw new CheckFailed(`${what}: not within ${seconds} s`)
    await Bun.sleep(250)
  }
}

function freeLoopbackPort(): number {
  const probe = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
  const port = probe.port
  probe.stop(true)
  return port
}

await ensureDebianPackages(log)
const env = podmanEnv(join(ROOT, '.tmp/containers'))
const base = await ensureLocalBaseImage(env, log)
log(base.made ? `made the base image ${base.image}` : `base image ${base.image} already made`)
const built = await buildImages(base.image, env, log)
const instances = composeInstances()

const port = freeLoopbackPort()
const origin = `http://127.0.0.1:${port}`
const composeEnv = {
  ...env,
  MARS_TAG: built.version,
  MARS_LISTEN: `127.0.0.1:${port}`,
  PUBLIC_URL: origin,
  POSTGRES_PASSWORD: randomBytes(18).toString('base64url'),
  WORKERS: String(WORKERS),
  UPDATE_INTERVAL_S: '86400',
  SMTP_URL: '',
}
// quiet: podman-compose echoes every podman call, and podman complains on each start that it
// cannot reach systemd to schedule the image's HEALTHCHECK (these sandboxes have no systemd).
const compose = (...args: string[]) => run(['podman-compose', '-p', PROJECT, '-f', join(ROOT, 'compose.yaml'), ...args], { env: composeEnv, cwd: ROOT, capture: true, quiet: true })
const container = (service: string) => `${PROJECT}_${service}_1`
/** A container's output, stdout and stderr (a worker's start failure is on stderr). */
async function logsOf(service: string): Promise<string[]> {
  const p = Bun.spawn(['podman', 'logs', container(service)], { env, stdout: 'pipe', stderr: 'pipe' })
  const [out, err] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited])
  return (out + err).split('\n')
}
const events = (lines: string[], event: string) =>
  lines.filter((l) => l.includes(`"event":"${event}"`)).map((l) => JSON.parse(l.slice(l.indexOf('{'))) as Record<string, any>)

const feed = new FeedReplayServer({ latestPerseverance: 8 })
let failure: unknown
let stoppedCleanly = false
const figures = { healthyS: 0, keyCalls: {} as Record<string, number>, version: { from: '', to: '' } }
try {
  // A run stopped half-way leaves its stack: take it down first (podman-compose takes a while
  // even over nothing, so only when a container of the project is there).
  const leftovers = await run(['podman', 'ps', '-aq', '--filter', `label=io.podman.compose.project=${PROJECT}`], { env, capture: true, quiet: true })
  if (leftovers.trim()) await compose('down', '-v').catch(() => {})
  log(`compose up: ${instances.length} instances × ${WORKERS} workers, HAProxy on ${origin}`)
  const upAt = performance.now()
  await compose('up', '-d')
  log(`compose up returned after ${((performance.now() - upAt) / 1000).toFixed(1)} s`)

  // 1. Healthy: /health through HAProxy answers 200 from every instance in turn.
  const first = await until('/health 200 through HAProxy', 300, async () => {
    const r = await fetch(`${origin}/health`)
    return r.status === 200 ? ((await r.json()) as { index: { version: string } }) : undefined
  })
  figures.healthyS = (performance.now() - upAt) / 1000
  figures.version.from = first.index.version
  log(`healthy ${figures.healthyS.toFixed(1)} s after compose up (index ${first.index.version})`)
  await until('every instance started its workers', 120, async () => {
    for (const s of instances) if (events(await logsOf(s), 'supervisor.started').length === 0) return false
    return true
  })
  for (const s of instances) {
    const uid = (await run(['podman', 'exec', container(s), 'id', '-u'], { env, capture: true, quiet: true })).trim()
    check(uid === '10001', `${s} runs as uid ${uid}, not the image's user mars (10001)`)
  }

  // 2. A key made through the dashboard, behind HAProxy; the sign-in link from an instance's log.
  const email = `ops-${Date.now()}@example.org`
  const c = new FormClient((r) => fetch(r, { redirect: 'manual' }), origin)
  const form = await c.get('/dashboard')
  check(form.status === 200, `GET /dashboard answered ${form.status}`)
  const sent = await c.post('/dashboard/sign-in', formFields(await form.text(), '/dashboard/sign-in', { email }))
  check(sent.status === 200, `POST /dashboard/sign-in answered ${sent.status}`)
  const link = await until('the sign-in link in an instance log', 30, async () => {
    for (const s of instances) {
      const e = events(await logsOf(s), 'mail.sign-in-link').find((x) => x.to === email)
      if (e) return new URL(e.link as string)
    }
    return undefined
  })
  const confirm = await c.get(link.pathname + link.search)
  check(confirm.status === 200, `the sign-in link answered ${confirm.status}`)
  const signedIn = await c.post('/dashboard/link', formFields(await confirm.text(), '/dashboard/link'))
  check(signedIn.status === 303, `confirming the sign-in answered ${signedIn.status}`)
  const page = await (await c.get('/dashboard')).text()
  // POST/redirect/GET: the new key is shown once, on the page the 303 leads to.
  const created = await (await c.postAndFollow('/dashboard/key', formFields(page, '/dashboard/key'))).text()
  const key = KEY.exec(created)?.[0]
  check(key !== undefined, 'the dashboard showed no new key')
  const ids: string[] = []
  for (let i = 0; i < 8 * instances.length; i++) {
    const id = `container-test-key-${i}-${Date.now()}`
    ids.push(id)
    const r = await fetch(`${origin}/api/v2/photos?rovers=curiosity&per_page=1`, { headers: { 'x-api-key': key!, 'x-request-id': id } })
    check(r.status === 200, `the dashboard's key answered ${r.status} through HAProxy`)
    check(r.headers.get('x-request-id') === id, 'the answer did not carry the request id')
  }
  await until('each instance logged some of the key requests, all 200', 30, async () => {
    for (const s of instances) {
      const mine = events(await logsOf(s), 'http.request').filter((e) => ids.includes(e.request_id))
      if (mine.length === 0 || mine.some((e) => e.status !== 200)) return false
      figures.keyCalls[s] = mine.length
    }
    return true
  })
  check(Object.values(figures.keyCalls).reduce((a, b) => a + b, 0) === ids.length, `access logs hold ${JSON.stringify(figures.keyCalls)} of ${ids.length} key requests`)
  log(`the dashboard's key answered 200 on every instance (${JSON.stringify(figures.keyCalls)})`)

  // 3. An index update: the update job's command once, in the service image, on the stack's
  // volumes, against the stand-in feeds on loopback (host network: it reaches only 127.0.0.1 here).
  const volumes = (await run(['podman', 'volume', 'ls', '--format', '{{.Name}}'], { env, capture: true })).split('\n')
  const volume = (name: string) => {
    const v = volumes.find((x) => x === `${PROJECT}_${name}`)
    check(v !== undefined, `no volume ${PROJECT}_${name}`)
    return v!
  }
  log(`update job against the stand-in feeds at ${feed.url}`)
  const report = JSON.parse(
    await run(
      ['podman', 'run', '--rm', '--network', 'host', '-v', `${volume('index')}:/var/lib/mars/index`, '-v', `${volume('feeds')}:/var/lib/mars/feeds`, '-e', `FEED_BASE_URL=${feed.url}`, built.names.service, 'bun', 'index-builder/fetch/update-cli.ts', '--rate', '200', '--backoff-ms', '20', '--json'],
      { env, capture: true, quiet: true },
    ),
  ) as { build: { ran: boolean; code?: number; output?: string } }
  check(report.build.ran && report.build.code === 0, `the update did not publish: ${JSON.stringify(report.build)}`)
  const to = /index ([0-9a-f]{16})/.exec(report.build.output ?? '')?.[1]
  check(to !== undefined && to !== figures.version.from, `the update published no new version (${report.build.output})`)
  figures.version.to = to!
  await until(`every worker of every instance swapped in ${to}`, 120, async () => {
    for (const s of instances) if (events(await logsOf(s), 'index.swapped').filter((e) => e.to === to).length < WORKERS) return false
    return true
  })
  for (let i = 0; i < 4 * instances.length; i++) {
    const h = (await (await fetch(`${origin}/health`)).json()) as { index: { version: string } }
    check(h.index.version === to, `/health through HAProxy still answered version ${h.index.version}`)
  }
  log(`update ${figures.version.from} → ${to} reached every worker of every instance`)

  // 4. SIGTERM: every container stops with exit code 0 within its grace period.
  const stopAt = performance.now()
  await compose('stop')
  const stopS = (performance.now() - stopAt) / 1000
  const services = Object.keys((Bun.YAML.parse(await Bun.file(join(ROOT, 'compose.yaml')).text()) as { services: object }).services)
  for (const s of services) {
    const state = (await run(['podman', 'inspect', '--format', '{{.State.Status}} {{.State.ExitCode}}', container(s)], { env, capture: true, quiet: true })).trim()
    check(state === 'exited 0', `${s} after SIGTERM: ${state}`)
  }
  for (const s of instances) {
    const lines = await logsOf(s)
    check(events(lines, 'server.stopped').length === WORKERS, `${s}: ${events(lines, 'server.stopped').length} of ${WORKERS} workers logged server.stopped`)
    check(events(lines, 'supervisor.stopped').some((e) => e.outcome === 'drained'), `${s}: the supervisor did not log a drained stop`)
  }
  stoppedCleanly = true
  log(`SIGTERM stopped ${services.length} containers with exit code 0 in ${stopS.toFixed(1)} s`)
} catch (e) {
  failure = e
  for (const s of instances) {
    const tail = await logsOf(s).catch(() => [] as string[])
    process.stderr.write(`--- ${s} (last lines)\n${tail.filter((l) => !l.includes('systemd')).slice(-25).join('\n')}\n`)
  }
} finally {
  feed.stop()
  await compose('down', '-v').catch((e) => log(`compose down failed: ${e}`))
}

if (failure || !stoppedCleanly) {
  process.stderr.write(`container-test: FAILED: ${failure instanceof Error ? failure.message : String(failure)}\n`)
  process.exit(1)
}
const tag = `${IMAGES.service}:${built.version}`
process.stdout.write(
  `container-test: ${instances.length} instances healthy behind HAProxy; key works on each; update reached each; image ${tag} ${(built.serviceBytes / 1e6).toFixed(0)} MB; healthy ${figures.healthyS.toFixed(1)} s after compose up\n`,
)
