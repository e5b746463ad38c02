/**
 * Running podman the way this kind of machine allows: as root, with Debian's podman 4.3, runc
 * and cgroupfs. crun fails on cgroups and rlimits in these sandboxes, and the default ulimits
 * cannot be set there, so every podman (and podman-compose) call gets CONTAINERS_CONF pointing at
 * a file that says so. On a machine where podman works as packaged, the file changes nothing a
 * deployment needs.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

export const CONTAINERS_CONF_TEXT = ['[containers]', 'default_ulimits = []', '', '[engine]', 'runtime = "runc"', 'cgroup_manager = "cgroupfs"', ''].join('\n')

/** The Debian packages the container commands need, by the command each provides. */
export const DEBIAN_PACKAGES: Readonly<Record<string, string>> = { podman: 'podman', 'podman-compose': 'podman-compose', runc: 'runc', debootstrap: 'debootstrap' }

const SBIN = '/usr/local/sbin:/usr/sbin:/sbin'

export function which(command: string): string | null {
  return Bun.which(command) ?? Bun.which(command, { PATH: `${process.env.PATH ?? ''}:${SBIN}` })
}

/** Installs from Debian whichever of the needed commands is missing (apt-get, as root). */
export async function ensureDebianPackages(log: (line: string) => void): Promise<void> {
  const missing = Object.entries(DEBIAN_PACKAGES).filter(([command]) => !which(command)).map(([, pkg]) => pkg)
  if (missing.length === 0) return
  log(`installing from Debian: ${missing.join(' ')}`)
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
  await run(['apt-get', 'update', '-qq'], { env })
  // With recommends: podman's network stack (netavark, aardvark-dns) comes as recommends.
  await run(['apt-get', 'install', '-y', '-qq', ...missing], { env })
}

/** Writes the CONTAINERS_CONF file into `dir`; returns the environment every podman call gets. */
export function podmanEnv(dir: string): Record<string, string | undefined> {
  mkdirSync(dir, { recursive: true })
  const conf = join(dir, 'containers.conf')
  if (!existsSync(conf)) writeFileSync(conf, CONTAINERS_CONF_TEXT)
  return { ...process.env, CONTAINERS_CONF: conf, PATH: `${process.env.PATH ?? ''}:${SBIN}` }
}

export interface RunOptions {
  env?: Record<string, string | undefined>
  cwd?: string
  /** Keep stdout (returned) instead of passing it through. */
  capture?: boolean
  /** Written to the command's stdin. */
  stdin?: Blob | ReadableStream | Uint8Array
  /** Non-zero exit codes that are not failures. */
  allow?: number[]
  /** Keep stderr too, shown only in a failure's error (podman's noise on a working call stays out of the log). */
  quiet?: boolean
}

/** Runs a command to its end; stderr passes through; a failure throws naming the command and, captured, its last output. */
export async function run(cmd: string[], o: RunOptions = {}): Promise<string> {
  const p = Bun.spawn(cmd, { env: o.env ?? process.env, cwd: o.cwd, stdin: o.stdin ?? 'ignore', stdout: o.capture ? 'pipe' : 'inherit', stderr: o.quiet ? 'pipe' : 'inherit' })
  const [out, err] = await Promise.all([o.capture ? new Response(p.stdout as ReadableStream).text() : '', o.quiet ? new Response(p.stderr as ReadableStream).text() : ''])
  const code = await p.exited
  if (code !== 0 && !(o.allow ?? []).includes(code)) {
    // What the command printed last says why (a build's failing step): kept in the error.
    const tail = (out.trimEnd() + '\n' + err.trimEnd()).trim().split('\n').slice(-30).join('\n')
    throw new Error(`${cmd.slice(0, 3).join(' ')} … exited with code ${code}${tail ? `; its last output:\n${tail}` : ''}`)
  }
  return out
}
