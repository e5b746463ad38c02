/**
 * A Debian bookworm base image made here, for machines that reach Debian's package mirror but no
 * container registry: `debootstrap --variant=minbase` into a temporary folder, the folder's tar
 * imported with `podman import`. Made once: an image already in podman's store under the tag is
 * reused, so a second run costs nothing.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { run } from './podman'

export const LOCAL_BASE_IMAGE = 'localhost/mars-debian-base:bookworm'
/** The mirror debootstrap reads (Debian's own redirector; DEBIAN_MIRROR to use another). */
const MIRROR = process.env.DEBIAN_MIRROR || 'http://deb.debian.org/debian'

const SLIM_EXCLUDES = ['path-exclude /usr/share/man/*', 'path-exclude /usr/share/info/*', 'path-exclude /usr/share/locale/*', 'path-include /usr/share/locale/locale.alias', 'path-exclude /usr/share/doc/*', 'path-include /usr/share/doc/*/copyright', ''].join('\n')
const APT_CLEAN = ['DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };', 'APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };', 'Dir::Cache::pkgcache "";', 'Dir::Cache::srcpkgcache "";', ''].join('\n')

export async function imageExists(name: string, env: Record<string, string | undefined>): Promise<boolean> {
  const p = Bun.spawn(['podman', 'image', 'exists', name], { env, stdout: 'ignore', stderr: 'ignore' })
  return (await p.exited) === 0
}

/** Makes LOCAL_BASE_IMAGE unless podman has it; returns its name and whether it was made now. */
export async function ensureLocalBaseImage(env: Record<string, string | undefined>, log: (line: string) => void): Promise<{ image: string; made: boolean }> {
  if (await imageExists(LOCAL_BASE_IMAGE, env)) return { image: LOCAL_BASE_IMAGE, made: false }
  const work = mkdtempSync(join(tmpdir(), 'mars-base-'))
  const root = join(work, 'root')
  try {
    log(`debootstrap bookworm (minbase) from ${MIRROR}`)
    await run(['debootstrap', '--variant=minbase', 'bookworm', root, MIRROR], { env, capture: true })
    // The image's apt reads the same mirror with the security updates; package lists are fetched
    // by each image's own `apt-get update`, so none are kept here.
    await Bun.write(join(root, 'etc/apt/sources.list'), `deb ${MIRROR} bookworm main\ndeb ${MIRROR} bookworm-updates main\ndeb ${MIRROR.replace(/\/debian$/, '/debian-security')} bookworm-security main\n`)
    // As Debian's -slim images do: no manuals, documentation or translations, now or in later
    // installs (dpkg path-exclude), and apt keeps no package cache in a layer.
    await Bun.write(join(root, 'etc/dpkg/dpkg.cfg.d/excludes'), SLIM_EXCLUDES)
    await Bun.write(join(root, 'etc/apt/apt.conf.d/docker-clean'), APT_CLEAN)
    // Package installs in image builds: a crash mid-install throws the layer away anyway, so
    // dpkg's fsync after every file only costs time.
    await Bun.write(join(root, 'etc/dpkg/dpkg.cfg.d/unsafe-io'), 'force-unsafe-io\n')
    await run(['sh', '-c', `cd "${root}" && rm -rf var/lib/apt/lists/* var/cache/apt/*.bin var/cache/apt/archives/*.deb usr/share/man/* usr/share/info/* usr/share/locale/* && find usr/share/doc -type f ! -name copyright -delete`])
    const tar = Bun.spawn(['tar', '-C', root, '--numeric-owner', '-c', '.'], { stdout: 'pipe', stderr: 'inherit' })
    await run(['podman', 'import', '--change', 'CMD ["/bin/bash"]', '-', LOCAL_BASE_IMAGE], { env, stdin: tar.stdout as ReadableStream, capture: true })
    if ((await tar.exited) !== 0) throw new Error('tar of the debootstrap folder failed')
    return { image: LOCAL_BASE_IMAGE, made: true }
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}
