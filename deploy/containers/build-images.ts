/**
 * npm run container-build -- [--base IMAGE]
 *
 * Builds the four images compose.yaml runs, each tagged `localhost/<name>:<version>` (the version
 * of package.json) and `:latest`:
 * - mars-photo-query: the service (Containerfile), from a temporary build context holding the
 *   tracked source with its production node_modules (`npm install --omit=dev`, Bun included) and the
 *   real data of ../shared/data, which never enters git;
 * - mars-redis, mars-postgres, mars-haproxy: Debian's packages on the same base; HAProxy's
 *   configuration is deploy/haproxy-config.ts's text for the instances compose.yaml declares.
 * --base: the base image (default docker.io/library/debian:bookworm-slim). RUN steps use the
 * host's network, so they reach Debian's mirror wherever the host does.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { parseArgs } from 'node:util'
import { haproxyConfig } from '../haproxy-config'
import { run } from './podman'

const ROOT = join(import.meta.dir, '../..')
const HERE = import.meta.dir
export const DEFAULT_BASE_IMAGE = 'docker.io/library/debian:bookworm-slim'
/** What the service image needs of the repository, and the key CLI for operators (the tests, bench and tools stay out). */
const SOURCE_PATHS = ['package.json', 'package-lock.json', 'tsconfig.json', 'app', 'src', 'plugins', 'index-builder', 'scripts/keys.ts']
/** The port each instance serves on inside the stack, and HAProxy's. */
export const SERVICE_PORT = 3000
export const HAPROXY_PORT = 8080

export const IMAGES = { service: 'mars-photo-query', redis: 'mars-redis', postgres: 'mars-postgres', haproxy: 'mars-haproxy' } as const

export function projectVersion(): string {
  return (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version
}

/** The compose services that run the service image and serve (every one but the update job): HAProxy's backend. */
export function composeInstances(composeText: string = readFileSync(join(ROOT, 'compose.yaml'), 'utf8')): string[] {
  const doc = Bun.YAML.parse(composeText) as { services: Record<string, { image?: string; command?: unknown }> }
  return Object.entries(doc.services)
    .filter(([, s]) => s.image?.includes(`/${IMAGES.service}:`) && s.command === undefined)
    .map(([name]) => name)
}

/** The HAProxy configuration baked into mars-haproxy: the deploy/ recipe, one server per instance. */
export function stackHaproxyConfig(instances: string[] = composeInstances()): string {
  return haproxyConfig({ bind: `:${HAPROXY_PORT}`, servers: instances.map((name) => `${name}:${SERVICE_PORT}`), resolveNames: true })
}

export interface BuiltImages {
  version: string
  /** Full names with the version tag, by role. */
  names: Record<keyof typeof IMAGES, string>
  /** The service image's size, bytes. */
  serviceBytes: number
}

export async function buildImages(base: string, env: Record<string, string | undefined>, log: (line: string) => void): Promise<BuiltImages> {
  const version = projectVersion()
  const names = Object.fromEntries(Object.entries(IMAGES).map(([role, name]) => [role, `localhost/${name}:${version}`])) as BuiltImages['names']
  const work = mkdtempSync(join(tmpdir(), 'mars-build-'))
  try {
    // The three helpers share one small context: this folder's files and the HAProxy text.
    const helpers = join(work, 'helpers')
    mkdirSync(helpers)
    cpSync(join(HERE, 'postgres-start.sh'), join(helpers, 'postgres-start.sh'))
    writeFileSync(join(helpers, 'haproxy.cfg'), stackHaproxyConfig())
    const service = join(work, 'service')
    // All four at once: one image's downloads and package installs overlap another's CPU work.
    const builds = await Promise.allSettled([
      (async () => {
        log(`staging the service's build context in ${service}`)
        await stageServiceContext(service)
        await build(names.service, join(ROOT, 'Containerfile'), service, base, version, env, log)
      })(),
      ...(['redis', 'postgres', 'haproxy'] as const).map((role) => build(names[role], join(HERE, `${role}.Containerfile`), helpers, base, version, env, log)),
    ])
    // Settled, not all: the contexts are removed only once no build reads them.
    for (const b of builds) if (b.status === 'rejected') throw b.reason
    const size = await run(['podman', 'image', 'inspect', '--format', '{{.Size}}', names.service], { env, capture: true })
    return { version, names, serviceBytes: Number(size.trim()) }
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}

async function build(name: string, file: string, context: string, base: string, version: string, env: Record<string, string | undefined>, log: (line: string) => void): Promise<void> {
  const started = performance.now()
  log(`building ${name}`)
  const latest = name.replace(/:[^:/]+$/, ':latest')
  // docker format: the OCI format has no HEALTHCHECK, and podman would drop it.
  await run(['podman', 'build', '--format', 'docker', '--network', 'host', '--build-arg', `BASE_IMAGE=${base}`, '--build-arg', `VERSION=${version}`, '-t', name, '-t', latest, '-f', file, context], { env, capture: true })
  log(`built ${name} in ${((performance.now() - started) / 1000).toFixed(0)} s`)
}

/** app/: the tracked source files (as in the working tree); node_modules/: their production dependencies; shared/data/: the real records. */
async function stageServiceContext(context: string): Promise<void> {
  const app = join(context, 'app')
  const tracked = (await run(['git', 'ls-files', '-z', '--', ...SOURCE_PATHS], { cwd: ROOT, capture: true })).split('\0').filter(Boolean)
  for (const file of tracked) {
    try {
      if (!statSync(join(ROOT, file)).isFile()) continue
    } catch {
      continue // deleted in the working tree
    }
    mkdirSync(join(app, dirname(file)), { recursive: true })
    cpSync(join(ROOT, file), join(app, file))
  }
  // install, not ci: the committed lockfile lacks some platforms' optional bindings, which ci
  // refuses; install keeps the locked versions and writes only the staged copy of the lockfile.
  // --omit=peer: TypeScript (a peer of elysia's) checks types; nothing runs it in the image.
  await run(['npm', 'install', '--omit=dev', '--omit=peer', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: app, capture: true })
  // Its own layer, copied before the source: a change of the source alone reuses it.
  renameSync(join(app, 'node_modules'), join(context, 'node_modules'))
  const data = join(ROOT, '../shared/data')
  cpSync(data, join(context, 'shared/data'), { recursive: true, dereference: true })
}

if (import.meta.main) {
  const { values } = parseArgs({ options: { base: { type: 'string' }, help: { type: 'boolean', short: 'h' } } })
  if (values.help) {
    process.stdout.write('usage: npm run container-build -- [--base IMAGE]   (default ' + DEFAULT_BASE_IMAGE + ')\n')
    process.exit(0)
  }
  // CONTAINERS_CONF as the caller set it: the sandbox settings of podman.ts are the test's own.
  const env = { ...process.env }
  const built = await buildImages(values.base ?? DEFAULT_BASE_IMAGE, env, (line) => process.stderr.write(`container-build: ${line}\n`))
  process.stdout.write(`${Object.values(built.names).join('\n')}\nservice image ${(built.serviceBytes / 1e6).toFixed(0)} MB\n`)
}
