import { existsSync, lstatSync, readdirSync, realpathSync, statSync } from 'node:fs'
import path from 'node:path'
import { printable } from './input-limits'
import { SourceError } from './source-error'

/**
 * The files to read: given files as they are, given folders walked recursively in name order
 * (dot-files skipped). Under folders only data files by name are read (.json, .geojson, .csv, .tsv,
 * .tar, .tgz, .gz, .lbl); the others are returned as `ignored` (a PDS3 .tab among them: its label reads it). Paths are shown relative to the repo root
 * when they are inside its parent folder (`../shared/data/raw/…`), else absolute, with control and
 * bidi characters escaped (a file name is untrusted text printed to a terminal).
 *
 * Symbolic links are followed only while they stay inside the roots given (a link to /etc/shadow
 * from a data folder is not read), and each real folder is walked once, so a link loop ends. Links
 * that leave the roots, dangle or loop are returned in `refused` with the reason.
 */

/** The folder holding package.json, found upward from this module. */
export const REPO_ROOT = findRepoRoot(import.meta.dir)
export const DEFAULT_RAW_DIR = path.resolve(REPO_ROOT, '../shared/data/raw')
/** Real sources whose formats the builder learnt later (SOURCES.md §2.11–2.13), read in place. */
export const DEFAULT_INCOMING_DIR = path.resolve(REPO_ROOT, '../shared/data/incoming')
/** Real sources of the formats learnt last (SOURCES.md §2.14–2.16), read in place. */
export const DEFAULT_PENDING_DIR = path.resolve(REPO_ROOT, '../shared/data/pending')
/**
 * What a build reads when given no source paths (and what given paths are added to):
 * BUILD_SOURCE_DIRS (a `:`-separated list) where an operator keeps the real data elsewhere, else
 * the three folders of ../shared/data.
 */
export const DEFAULT_SOURCE_DIRS: readonly string[] = process.env.BUILD_SOURCE_DIRS
  ? process.env.BUILD_SOURCE_DIRS.split(':').filter(Boolean).map((p) => path.resolve(p))
  : [DEFAULT_RAW_DIR, DEFAULT_INCOMING_DIR, DEFAULT_PENDING_DIR]

// .lbl: PDS3 labels, among them index-table labels, which read the .tab they point at themselves.
const DATA_FILE = /\.(json|geojson|csv|tsv|tar|tgz|gz|lbl)$/i
/** Deepest folder nesting walked (the real data nests 3 levels). */
const MAX_DEPTH = 32

export interface FileList {
  data: string[]
  ignored: string[]
  refused: Array<{ path: string; reason: string }>
}

export function listFiles(inputs: readonly string[]): FileList {
  const data = new Map<string, string>() // real path -> path as reached (shown in messages)
  const ignored: string[] = []
  const refused: FileList['refused'] = []
  const roots: string[] = []
  for (const input of inputs) {
    const abs = path.resolve(input)
    if (!existsSync(abs)) throw new SourceError(printable(input), 'file', 'no such file or folder')
    roots.push(realpathSync(abs))
  }
  const inRoots = (real: string) => roots.some((r) => real === r || real.startsWith(r.endsWith(path.sep) ? r : r + path.sep))
  const walked = new Set<string>()
  const walk = (dir: string, real: string, depth: number) => {
    if (walked.has(real)) return
    walked.add(real)
    if (depth > MAX_DEPTH) {
      refused.push({ path: displayPath(dir), reason: `folders nested deeper than ${MAX_DEPTH}` })
      return
    }
    for (const name of readdirSync(dir).sort()) {
      if (name.startsWith('.')) continue
      const p = path.join(dir, name)
      let st = lstatSync(p)
      let target = path.join(real, name)
      if (st.isSymbolicLink()) {
        try {
          target = realpathSync(p)
        } catch (e) {
          const code = (e as NodeJS.ErrnoException).code
          refused.push({ path: displayPath(p), reason: code === 'ELOOP' ? 'symbolic link loop' : `broken symbolic link (${code})` })
          continue
        }
        if (!inRoots(target)) {
          refused.push({ path: displayPath(p), reason: 'symbolic link leads outside the source folders' })
          continue
        }
        st = statSync(target)
      }
      if (st.isDirectory()) walk(p, target, depth + 1)
      else if (!st.isFile()) ignored.push(p)
      else if (DATA_FILE.test(name) && !/\.tab\.gz$/i.test(name)) {
        if (!data.has(target)) data.set(target, p)
      }
      else ignored.push(p)
    }
  }
  for (const [i, input] of inputs.entries()) {
    const abs = path.resolve(input)
    if (statSync(abs).isDirectory()) walk(abs, roots[i]!, 0)
    else if (!data.has(roots[i]!)) data.set(roots[i]!, abs)
  }
  return { data: [...data.values()], ignored, refused }
}

/** Relative to the repo root when inside it or its parent folder (../shared/data/raw/…), else absolute; escaped for printing. */
export function displayPath(abs: string): string {
  const rel = path.relative(REPO_ROOT, abs)
  return printable(rel.startsWith(`..${path.sep}..`) || path.isAbsolute(rel) ? abs : rel.split(path.sep).join('/'))
}

function findRepoRoot(from: string): string {
  let dir = from
  for (;;) {
    if (existsSync(path.join(dir, 'package.json'))) return dir
    const up = path.dirname(dir)
    if (up === dir) return from
    dir = up
  }
}
