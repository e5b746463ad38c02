import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs'
import { dirname } from 'node:path'

/**
 * A lock file so that two runs (two cron firings, or a cron run and a hand-started one) never
 * work on the same feed folder or index at once. Created with O_EXCL; it holds the owner's pid.
 * A lock whose owner is gone (killed with -9, the machine rebooted) is stale and taken over.
 */
export class LockHeld extends Error {
  constructor(
    readonly path: string,
    readonly pid: number,
  ) {
    super(`${path} is held by running process ${pid}`)
  }
}

export interface Lock {
  release(): void
}

export function acquireLock(path: string): Lock {
  mkdirSync(dirname(path), { recursive: true })
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx')
      writeSync(fd, `${process.pid}\n`)
      closeSync(fd)
      let held = true
      const release = () => {
        if (!held) return
        held = false
        process.off('exit', release)
        // Only our own lock: a stale-lock takeover by another run must not be undone by us.
        if (ownerOf(path) === process.pid) rmSync(path, { force: true })
      }
      process.once('exit', release)
      return { release }
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e
      const owner = ownerOf(path)
      if (owner !== undefined && owner !== process.pid && alive(owner)) throw new LockHeld(path, owner)
      rmSync(path, { force: true }) // stale: its owner is gone
    }
  }
  throw new Error(`cannot take the lock ${path}`)
}

function ownerOf(path: string): number | undefined {
  try {
    const n = Number(readFileSync(path, 'utf8').trim())
    return Number.isSafeInteger(n) && n > 0 ? n : undefined
  } catch {
    return undefined
  }
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'
  }
}
