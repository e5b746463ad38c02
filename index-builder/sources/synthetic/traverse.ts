import type { Waypoint } from './shaping-data'
import type { Rng } from './rng'

/**
 * Where the rover is on each sol: the (site, drive) it wakes up at, and the (site, drive) values
 * it reaches by driving during that sol, in order. Site and drive only rise (SOURCES.md §6.4):
 * taken from the real waypoint tables where they exist (rows that would go backwards are
 * dropped), continued synthetically after the last waypoint and for Opportunity.
 */
export interface Traverse {
  startSite: Int32Array
  startDrive: Int32Array
  /** Moves of sol s: moveSite/moveDrive[moveStart[s] .. moveStart[s+1]). */
  moveStart: Int32Array
  moveSite: Int32Array
  moveDrive: Int32Array
}

export interface TraverseOptions {
  maxSol: number
  firstSite: number
  /** Largest drive number (MER ids encode drive in 2 base-36 characters: < 1296). */
  maxDrive: number
  maxSite: number
  /** Synthetic continuation: chance of a drive on a sol, drive step range, sols per site. */
  driveChance: number
  step: [number, number]
  solsPerSite: number
}

export function buildTraverse(waypoints: Waypoint[], o: TraverseOptions, rng: Rng): Traverse {
  const sorted = [...waypoints].sort((a, b) => a.sol - b.sol || a.site - b.site || a.drive - b.drive)
  const bySol = new Map<number, Array<[number, number]>>()
  let site = o.firstSite
  let drive = 0
  let lastSol = -1
  for (const w of sorted) {
    if (w.sol > o.maxSol || w.site > o.maxSite || w.drive > o.maxDrive) continue
    if (w.site < site || (w.site === site && w.drive <= drive)) continue
    site = w.site
    drive = w.drive
    lastSol = w.sol
    let list = bySol.get(w.sol)
    if (!list) bySol.set(w.sol, (list = []))
    list.push([site, drive])
  }
  // Synthetic continuation after the last real waypoint.
  let siteSince = lastSol
  for (let s = lastSol + 1; s <= o.maxSol; s++) {
    if (rng.next() >= o.driveChance) continue
    if (s - siteSince >= o.solsPerSite * (0.5 + rng.next()) || drive + o.step[1] > o.maxDrive) {
      if (site + 1 > o.maxSite) continue
      site++
      drive = 0
      siteSince = s
    }
    drive += rng.int(o.step[0], o.step[1])
    bySol.set(s, [[site, drive]])
  }

  const n = o.maxSol + 1
  let total = 0
  for (const list of bySol.values()) total += list.length
  const t: Traverse = {
    startSite: new Int32Array(n),
    startDrive: new Int32Array(n),
    moveStart: new Int32Array(n + 1),
    moveSite: new Int32Array(total),
    moveDrive: new Int32Array(total),
  }
  site = o.firstSite
  drive = 0
  let m = 0
  for (let s = 0; s < n; s++) {
    t.startSite[s] = site
    t.startDrive[s] = drive
    t.moveStart[s] = m
    for (const [ms, md] of bySol.get(s) ?? []) {
      t.moveSite[m] = ms
      t.moveDrive[m] = md
      m++
      site = ms
      drive = md
    }
  }
  t.moveStart[n] = m
  return t
}
