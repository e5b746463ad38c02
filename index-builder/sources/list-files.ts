import { existsSync, readdirSync, statSync } from 'node:fs'
import path from 'node:path'
import { SourceError } from './source-error'

/**
 * The files to read: given files as they are, given folders walked recursively in name order
 * (dot-files skipped). Under folders only data files by name are read (.json, .geojson, .csv, .tsv,
 * .tar, .tgz, .gz); the others are returned as `ignored`. Paths are shown relative to the repo root
 * when they are inside its parent folder (`../shared/data/raw/…`), else absolute.
 */

/** The folder holding package.json, found upward from this module. */
export const REPO_ROOT = findRepoRoot(import.meta.dir)
export const DEFAULT_RAW_DIR = path.resolve(REPO_ROOT, '../shared/data/raw')

const DATA_FILE = /\.(json|geojson|csv|tsv|tar|tgz|gz)$/i

export function listFiles(inputs: readonly string[]): { data: string[]; ignored: string[] } {
  const data = new Set<string>()
  const ignored: string[] = []
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      if (name.startsWith('.')) continue
      const p = path.join(dir, name)
      const st = statSync(p)
      if (st.isDirectory()) walk(p)
      else if (DATA_FILE.test(name)) data.add(p)
      else ignored.push(p)
    }
  }
  for (const input of inputs) {
    const abs = path.resolve(input)
    if (!existsSync(abs)) throw new SourceError(input, 'file', 'no such file or folder')
    if (statSync(abs).isDirectory()) walk(abs)
    else data.add(abs)
  }
  return { data: [...data], ignored }
}

/** Relative to the repo root when inside it or its parent folder (../shared/data/raw/…), else absolute. */
export function displayPath(abs: string): string {
  const rel = path.relative(REPO_ROOT, abs)
  return rel.startsWith(`..${path.sep}..`) || path.isAbsolute(rel) ? abs : rel.split(path.sep).join('/')
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
