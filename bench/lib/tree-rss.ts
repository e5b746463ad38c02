import { readdirSync, readFileSync } from 'node:fs'

/**
 * Resident memory of a process and all its descendants, read from /proc (Linux). The kernel's
 * maxrss (wait4) gives the largest single process of a tree; a build that runs several worker
 * processes at once holds their sum, which only sampling sees.
 */
const PAGE = 4096

function parents(): Map<number, number> {
  const ppid = new Map<number, number>()
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'latin1')
      // The command name (field 2) may hold spaces and parentheses: fields after the last ')'.
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      ppid.set(Number(name), Number(rest[1]))
    } catch {
      // the process ended while we looked
    }
  }
  return ppid
}

/** Bytes resident in `pid` and its descendants now (0 when it is gone or /proc is absent). */
export function treeRssBytes(pid: number): number {
  let ppid: Map<number, number>
  try {
    ppid = parents()
  } catch {
    return 0
  }
  const tree = new Set([pid])
  for (let grew = true; grew; ) {
    grew = false
    for (const [p, parent] of ppid) if (!tree.has(p) && tree.has(parent)) { tree.add(p); grew = true }
  }
  let total = 0
  for (const p of tree) total += rssBytes(p)
  return total
}

/** Bytes resident in `pid` alone now (0 when it is gone or /proc is absent). */
export function rssBytes(pid: number): number {
  try {
    return Number(readFileSync(`/proc/${pid}/statm`, 'latin1').split(' ')[1]) * PAGE
  } catch {
    return 0
  }
}

/** Samples a process tree's RSS every `everyMs` until stopped; `peak()` is the largest sum seen. */
export function sampleTreeRss(pid: number, everyMs = 250): { peak: () => number; stop: () => void } {
  let peak = 0
  const take = () => { peak = Math.max(peak, treeRssBytes(pid)) }
  take()
  const timer = setInterval(take, everyMs)
  return { peak: () => peak, stop: () => clearInterval(timer) }
}
