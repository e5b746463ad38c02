import { ROVERS, roverCode, type RoverSlug } from '../../../src/catalog/rovers'
import { FULL, PROFILES, type CameraProfile } from './camera-profiles'
import { missionClock, SOL_MS } from './mars-clock'
import type { SolPlan } from './plan-volumes'
import { Rng } from './rng'
import type { Traverse } from './traverse'

/**
 * The numeric fields of every synthetic photo, in generation order (per rover, sol ascending,
 * time ascending), in typed arrays: no per-photo objects. Strings (ids, URLs, Mars time) are
 * written later from these fields, in the final row order (synthetic.ts).
 */
export interface GenRows {
  length: number
  profile: Uint8Array
  sol: Int32Array
  earthDate: Int32Array
  utc: Float64Array
  lmst: Int32Array
  sclk: Float64Array
  product: Uint8Array
  width: Int32Array
  height: Int32Array
  site: Int32Array
  drive: Int32Array
  x: Float64Array
  y: Float64Array
  z: Float64Array
  az: Float32Array
  el: Float32Array
  /** Sequence number within the rover, frame within the sequence, eye (0 left/only, 1 right partner). */
  seq: Int32Array
  frame: Int16Array
  eye: Uint8Array
  /** Photo number within its rover (generation order), for counters in MSSS names. */
  counter: Int32Array
  id: Int32Array
}

export function allocRows(n: number): GenRows {
  return {
    length: 0,
    profile: new Uint8Array(n),
    sol: new Int32Array(n),
    earthDate: new Int32Array(n),
    utc: new Float64Array(n),
    lmst: new Int32Array(n),
    sclk: new Float64Array(n),
    product: new Uint8Array(n),
    width: new Int32Array(n),
    height: new Int32Array(n),
    site: new Int32Array(n),
    drive: new Int32Array(n),
    x: new Float64Array(n),
    y: new Float64Array(n),
    z: new Float64Array(n),
    az: new Float32Array(n),
    el: new Float32Array(n),
    seq: new Int32Array(n),
    frame: new Int16Array(n),
    eye: new Uint8Array(n),
    counter: new Int32Array(n),
    id: new Int32Array(n),
  }
}

const H = 3_600_000
const MARS_MS_PER_EARTH_MS = 86_400_000 / SOL_MS
const LATEST_LMST = 23 * H

interface Sequence {
  profile: number
  kind: 0 | 1 | 2 // 0 burst, 1 sweep, 2 descent
  photos: number
  paired: boolean
  start: number // LMST ms
  steps: number[] // LMST ms between frames
}

/** Appends the photos of one rover; returns the number of photos written. */
export function generateRover(rows: GenRows, rover: RoverSlug, plans: SolPlan[], traverse: Traverse, rng: Rng, firstId: number): number {
  const clock = missionClock(rover)
  const facts = ROVERS[roverCode(rover)]!
  const landingDay = Date.parse(`${facts.landing_date}T00:00:00Z`) / 86_400_000
  let seqNo = 0
  let counter = 0
  const start = rows.length
  const pairOf = new Map<number, number>()
  const productWeights = PROFILES.map((p) => p.products.map((pr) => pr[3]))
  PROFILES.forEach((p, i) => {
    if (p.rover === rover && p.pairCamera) pairOf.set(i, PROFILES.findIndex((q) => q.rover === rover && q.camera === p.pairCamera))
  })

  for (const plan of plans) {
    const { sol } = plan
    const landing = sol === clock.landingSol
    const seqs = planSequences(plan, landing, clock.landingLmstMs, rng)
    layOut(seqs, landing ? clock.landingLmstMs - 200_000 : 5 * H)
    const utc0 = clock.utcOf(sol, 0)
    const earthDate = landingDay + Math.floor(sol * 1.0274912)
    // Drives happen between 11:00 and 15:00 LMST; a sequence stays where it started.
    const m0 = traverse.moveStart[sol]!
    const moves = traverse.moveStart[sol + 1]! - m0
    for (const q of seqs) {
      const p = PROFILES[q.profile]!
      let site = traverse.startSite[sol]!
      let drive = traverse.startDrive[sol]!
      for (let k = 0; k < moves; k++) {
        if (q.start < 11 * H + ((k + 1) / (moves + 1)) * 4 * H) break
        site = traverse.moveSite[m0 + k]!
        drive = traverse.moveDrive[m0 + k]!
      }
      const [x, y, z] = siteFrame(rover, site, drive)
      const sweepStep = rng.real(10, 30) * (rng.next() < 0.5 ? -1 : 1)
      let az = rng.real(0, 360)
      const el0 = q.kind === 1 ? rng.real(-35, 10) : rng.real(-55, 25)
      const sweepProduct = p.products.findIndex((pr) => pr[0] === FULL)
      seqNo++
      let t = q.start
      let written = 0
      for (let f = 0; written < q.photos; f++) {
        if (f > 0) t += q.steps[f - 1]!
        const product = q.kind === 1 ? Math.max(0, sweepProduct) : rng.pick(productWeights[q.profile]!)
        const a = q.kind === 1 ? az + f * sweepStep + rng.real(-1.5, 1.5) : az + rng.real(-4, 4)
        const e = el0 + rng.real(-2, 2)
        const eyes = q.paired && q.photos - written >= 2 ? 2 : 1
        for (let eye = 0; eye < eyes; eye++) {
          const i = rows.length++
          rows.profile[i] = eye === 1 && pairOf.has(q.profile) ? pairOf.get(q.profile)! : q.profile
          rows.sol[i] = sol
          rows.earthDate[i] = earthDate
          rows.lmst[i] = t
          const utc = utc0 + t / MARS_MS_PER_EARTH_MS
          rows.utc[i] = Math.round(utc)
          rows.sclk[i] = Math.round(clock.sclkOf(utc) * 1000) / 1000
          rows.product[i] = product
          rows.width[i] = p.products[product]![1]
          rows.height[i] = p.products[product]![2]
          rows.site[i] = site
          rows.drive[i] = drive
          rows.x[i] = x
          rows.y[i] = y
          rows.z[i] = z
          rows.az[i] = p.mast ? wrapAzimuth(a) : NaN
          rows.el[i] = p.mast ? e : NaN
          rows.seq[i] = seqNo
          rows.frame[i] = f
          rows.eye[i] = eye
          rows.counter[i] = counter++
          rows.id[i] = firstId + (i - start)
          written++
        }
      }
    }
  }
  return rows.length - start
}

function planSequences(plan: SolPlan, landing: boolean, landingLmst: number, rng: Rng): Sequence[] {
  const seqs: Sequence[] = []
  let remaining = plan.count
  const cams = plan.cameras
  const weights = cams.map((i) => PROFILES[i]!.weight)
  if (landing) {
    for (const i of cams) {
      const burst = PROFILES[i]!.landingBurst
      if (!burst || remaining < 100) continue
      const photos = Math.min(remaining - 18, burst)
      seqs.push({ profile: i, kind: 2, photos, paired: false, start: landingLmst - 180_000, steps: steps(photos, 250, 1000, rng) })
      remaining -= photos
    }
  }
  while (remaining > 0) {
    const profile = cams[rng.pick(weights)]!
    const p: CameraProfile = PROFILES[profile]!
    const sweep = p.mast && rng.next() < p.sweep
    const frames = sweep ? rng.int(3, 20) : Math.min(8, 1 + Math.floor(-Math.log(1 - rng.next()) * 1.5))
    const paired = (p.pairCamera !== undefined || p.pairCode !== undefined) && rng.next() < p.pairChance
    const photos = Math.min(remaining, frames * (paired ? 2 : 1))
    const nFrames = paired ? Math.ceil(photos / 2) : photos
    const [lo, hi] = p.landingOnly ? [1000, 4000] : sweep ? [8000, 40000] : [2000, 25000]
    seqs.push({ profile, kind: sweep ? 1 : 0, photos, paired, start: desiredStart(landing, landingLmst, rng), steps: steps(nFrames, lo, hi, rng) })
    remaining -= photos
  }
  seqs.sort((a, b) => a.start - b.start)
  return seqs
}

/** Frame steps in LMST ms, drawn in Earth ms (clock seconds) and converted. */
function steps(frames: number, lo: number, hi: number, rng: Rng): number[] {
  const out = new Array<number>(Math.max(0, frames - 1))
  for (let k = 0; k < out.length; k++) out[k] = Math.max(1, Math.round(rng.real(lo, hi) * MARS_MS_PER_EARTH_MS))
  return out
}

/** Mostly 09:00-17:00 LMST (SOURCES.md §6.3), some around sunrise and sunset. */
function desiredStart(landing: boolean, landingLmst: number, rng: Rng): number {
  if (landing) return rng.real(landingLmst, Math.max(landingLmst + H, 20 * H))
  const r = rng.next()
  if (r < 0.86) return rng.real(9 * H, 17 * H)
  if (r < 0.93) return rng.real(5.5 * H, 9 * H)
  return rng.real(17 * H, 19.5 * H)
}

/**
 * Places the sequences one after another: each starts at its desired time or 1 s after the
 * previous one ends, so clock times are strictly increasing within a sol (ids built from the
 * clock are unique). A sol too busy for its day is packed from `earliest` with short gaps.
 */
function layOut(seqs: Sequence[], earliest: number): void {
  const place = (packed: boolean) => {
    let cursor = earliest - 1000
    for (const q of seqs) {
      q.start = Math.round(packed ? cursor + 1100 : Math.max(q.start, cursor + 1100))
      let end = q.start
      for (const s of q.steps) end += s
      cursor = end
    }
    return cursor
  }
  const desired = seqs.map((q) => q.start)
  if (place(false) <= LATEST_LMST) return
  seqs.forEach((q, i) => (q.start = desired[i]!))
  if (place(true) <= LATEST_LMST) return
  // Still too long: shrink every step in proportion (never below 1 ms).
  let total = 0
  for (const q of seqs) for (const s of q.steps) total += s
  const room = LATEST_LMST - earliest - seqs.length * 1100
  const f = Math.max(0.01, room / total)
  for (const q of seqs) for (let k = 0; k < q.steps.length; k++) q.steps[k] = Math.max(1, Math.floor(q.steps[k]! * f))
  place(true)
}

/** Into [0, 360), as the real builds serve every azimuth (feeds' −180…180 normalised). */
function wrapAzimuth(a: number): number {
  const w = ((a % 360) + 360) % 360
  return w >= 360 ? 0 : w
}

/** Rover position in the site frame for (site, drive): a small, deterministic offset (metres). */
function siteFrame(rover: RoverSlug, site: number, drive: number): [number, number, number] {
  if (drive === 0) return [0, 0, 0]
  const r = new Rng((site * 100_003 + drive * 7919 + roverCode(rover) * 1_000_003) >>> 0)
  const reach = Math.min(400, 5 + drive * 0.35)
  return [round3(r.real(-reach, reach)), round3(r.real(-reach, reach)), round3(r.real(-4, 4))]
}

function round3(v: number): number {
  return Math.round(v * 1000) / 1000
}
