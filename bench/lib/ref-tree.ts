import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** Another commit's tree, unpacked beside this one for a same-run comparison (`--against REF`). */
export interface RefTree {
  /** As the user wrote it (a branch, tag or hash). */
  ref: string
  commit: string
  dir: string
  remove(): void
}

function git(root: string, args: string[]): string {
  const r = spawnSync('git', args, { cwd: root, encoding: 'utf8', maxBuffer: 1 << 30 })
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${(r.stderr ?? '').trim()}`)
  return r.stdout.trim()
}

/**
 * The tree of `ref` in a temporary folder (git archive: no worktree or branch left behind in the
 * repository), sharing this tree's node_modules so both engines run on the same libraries and
 * the comparison is of our code alone.
 */
export function unpackRef(root: string, ref: string): RefTree {
  const commit = git(root, ['rev-parse', '--verify', '--end-of-options', `${ref}^{commit}`])
  const dir = mkdtempSync(join(tmpdir(), `mars-bench-ref-${commit.slice(0, 12)}-`))
  const remove = () => rmSync(dir, { recursive: true, force: true })
  try {
    const tar = join(dir, '.tree.tar')
    git(root, ['archive', '--format=tar', '-o', tar, commit, '--', 'src', 'package.json'])
    const x = spawnSync('tar', ['-xf', tar, '-C', dir], { encoding: 'utf8' })
    if (x.status !== 0) throw new Error(`tar -xf: ${x.stderr}`)
    rmSync(tar)
    if (existsSync(join(root, 'node_modules'))) symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'))
    return { ref, commit, dir, remove }
  } catch (e) {
    remove()
    throw e
  }
}
