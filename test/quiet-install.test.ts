import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

/**
 * `npm install` on a fresh clone leaves `git status` clean and prints no install-script warning.
 * npm rewrites a lockfile that lacks an entry for an optional dependency of a locked package (it
 * records every platform's binding, installed or not), and warns about a dependency's install
 * script that package.json's `allowScripts` does not cover. These checks read the committed
 * files, for the project and for each tool folder `npm test` installs.
 */
const ROOT = join(import.meta.dir, '..')
const FOLDERS = ['.', 'tools/openapi', 'tools/graph']

interface LockEntry {
  version?: string
  optionalDependencies?: Record<string, string>
  hasInstallScript?: boolean
}
interface Lock {
  packages: Record<string, LockEntry>
}
interface Manifest {
  name: string
  version?: string
  dependencies?: Record<string, string>
  devDependencies?: Record<string, string>
  allowScripts?: Record<string, boolean>
}

const read = <T>(folder: string, file: string): T => JSON.parse(readFileSync(join(ROOT, folder, file), 'utf8')) as T

/** Where npm resolves `name` from the package at `from`: the nearest node_modules up the tree. */
function resolveIn(lock: Lock, from: string, name: string): string | undefined {
  let base = from
  for (;;) {
    const at = `${base ? base + '/' : ''}node_modules/${name}`
    if (lock.packages[at]) return at
    const i = base.lastIndexOf('/node_modules/')
    if (base === '') return undefined
    base = i < 0 ? '' : base.slice(0, i)
  }
}

/** Optional dependencies of locked packages that have no lock entry (what npm install adds). */
export function missingOptionals(lock: Lock): string[] {
  const missing: string[] = []
  for (const [path, entry] of Object.entries(lock.packages)) {
    for (const dep of Object.keys(entry.optionalDependencies ?? {})) {
      if (!resolveIn(lock, path, dep)) missing.push(`${path || '(root)'} -> ${dep}`)
    }
  }
  return missing
}

describe('npm install leaves the working tree as committed', () => {
  for (const folder of FOLDERS) {
    test(`${folder}: every optional dependency of a locked package has its lock entry (npm would add the missing ones)`, () => {
      expect(missingOptionals(read<Lock>(folder, 'package-lock.json'))).toEqual([])
    })

    test(`${folder}: the lockfile's root entry matches package.json (name, version, dependencies)`, () => {
      const pkg = read<Manifest>(folder, 'package.json')
      const root = read<Lock>(folder, 'package-lock.json').packages['']! as LockEntry & Manifest
      expect({ name: root.name, version: root.version, dependencies: root.dependencies, devDependencies: root.devDependencies }).toEqual({
        name: pkg.name,
        version: pkg.version,
        dependencies: pkg.dependencies,
        devDependencies: pkg.devDependencies,
      })
    })

    test(`${folder}: every locked package with an install script is approved or denied in allowScripts (no warning at install)`, () => {
      const pkg = read<Manifest>(folder, 'package.json')
      const lock = read<Lock>(folder, 'package-lock.json')
      const unreviewed = Object.entries(lock.packages)
        .filter(([path, e]) => path !== '' && e.hasInstallScript)
        .map(([path, e]) => ({ name: path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length), version: e.version }))
        .filter(({ name, version }) => pkg.allowScripts?.[name] === undefined && pkg.allowScripts?.[`${name}@${version}`] === undefined)
      expect(unreviewed).toEqual([])
    })
  }

  test('the check can fail: a lock without the darwin binding of a package that lists it is reported', () => {
    const lock: Lock = {
      packages: {
        '': {},
        'node_modules/tool': { optionalDependencies: { 'tool-linux-x64': '1.0.0', 'tool-darwin-arm64': '1.0.0' } },
        'node_modules/tool-linux-x64': { version: '1.0.0' },
      },
    }
    expect(missingOptionals(lock)).toEqual(['node_modules/tool -> tool-darwin-arm64'])
  })
})
