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
    await run(['sh', '-c', `rm -rf "${root}"/var/lib/apt/lists/* "${root}"/var/cache/apt/archives/*.deb`])
    const tar = Bun.spawn(['tar', '-C', root, '--numeric-owner', '-c', '.'], { stdout: 'pipe', stderr: 'inherit' })
    await run(['podman', 'import', '--change', 'CMD ["/bin/bash"]', '-', LOCAL_BASE_IMAGE], { env, stdin: tar.stdout as ReadableStream, capture: true })
    if ((await tar.exited) !== 0) throw new Error('tar of the debootstrap folder failed')
    return { image: LOCAL_BASE_IMAGE, made: true }
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}
