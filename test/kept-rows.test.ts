import { describe, expect, test } from 'bun:test'
import { stereoPartners, STEREO_REACH_S } from '../index-builder/derive/related/stereo-pairs'
import { sequenceColumn } from '../index-builder/derive/related/sequences'
import type { KeptRows } from '../index-builder/derive/kept-rows'
import { utf8Column } from '../index-builder/encode/utf8-builder'
import { ROVER_SLUGS } from '../src/catalog/rovers'
import { INT_ABSENT, type PhotoColumns } from '../src/store/schema'
import { seededRandom } from './support/seeded-random'

/**
 * An update's merge derives the new rows alone and keeps the published rows' derived values
 * (derive/kept-rows.ts). The stereo partner is the one that depends on other photos: here, over
 * random catalogues dense in clock (many photos of one key within the pairing tolerance), photos
 * are added and removed, and the partners kept and paired again must be the ones a full pairing
 * of the new catalogue gives. The sequence column carried over must be the full build's, codes and
 * dictionary order included. (test/update-merge.test.ts checks the whole merged index against a
 * clean full build, file for file.)
 */
const PERSEVERANCE = ROVER_SLUGS.indexOf('perseverance')

interface Photo {
  id: number
  nasaId: string
  sclk: number
  sequence: string
  /** Product version (Perseverance serves one id for v01, v02, … of one exposure; the image file names tell them apart). */
  version: number
}

/** A Perseverance image id of the given eye and key letters (id-conventions.ts's pattern). */
function nasaIdOf(eye: 'L' | 'R', rig: string, sol: number, sclk: number, seq: string): string {
  return `${rig}${eye}F_${String(sol).padStart(4, '0')}_${String(Math.floor(sclk)).padStart(10, '0')}_000ECM_N0010052${seq}_00_2I3J`
}

function columns(photos: Photo[], partner?: Map<number, number>, sequence?: Map<number, string>): PhotoColumns {
  const n = photos.length
  const none = utf8Column(photos.map(() => ''))
  const dict: string[] = []
  const codes = new Int32Array(n)
  photos.forEach((p, i) => {
    const v = sequence?.get(p.id) ?? p.sequence
    let c = dict.indexOf(v)
    if (c < 0) c = dict.push(v) - 1
    codes[i] = c
  })
  return {
    length: n,
    id: Int32Array.from(photos.map((p) => p.id)),
    rover: new Uint8Array(n).fill(PERSEVERANCE),
    sol: new Int32Array(n).fill(59),
    sclk: Float64Array.from(photos.map((p) => p.sclk)),
    nasa_id: utf8Column(photos.map((p) => p.nasaId)),
    image_full: none,
    image_large: utf8Column(photos.map((p) => `${p.nasaId}${String(p.version).padStart(2, '0')}_1200.jpg`)),
    image_medium: none,
    image_small: none,
    stereo_partner: Int32Array.from(photos.map((p) => partner?.get(p.id) ?? INT_ABSENT)),
    sequence: { codes, dict },
  } as unknown as PhotoColumns
}

/** Random photos of few keys, their clocks within a minute (so pairs and near-misses abound). */
function randomPhotos(rnd: () => number, count: number, firstId: number): Photo[] {
  const out: Photo[] = []
  for (let i = 0; i < count; i++) {
    const eye = rnd() < 0.5 ? 'L' : 'R'
    const rig = rnd() < 0.7 ? 'N' : 'F'
    const sclk = rnd() < 0.05 ? NaN : 667130000 + Math.round(rnd() * 60 * 8) / 8
    const seq = rnd() < 0.5 ? 'NCAM00012' : 'NCAM00013'
    const version = rnd() < 0.7 ? 1 : rnd() < 0.7 ? 2 : 3
    out.push({ id: firstId + i, nasaId: nasaIdOf(eye, rig, 59, Number.isNaN(sclk) ? 0 : sclk, seq), sclk, sequence: seq, version })
  }
  return out
}

function shuffle<T>(rnd: () => number, a: T[]): T[] {
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1))
    ;[a[i], a[j]] = [a[j]!, a[i]!]
  }
  return a
}

describe('derived values of the rows an update keeps', () => {
  test(`stereo partners: photos added and removed near kept ones (within ${STEREO_REACH_S} s and beyond), the kept partners and the ones paired again equal a full pairing, in 300 random catalogues`, () => {
    let changedSome = 0
    for (let trial = 0; trial < 300; trial++) {
      const rnd = seededRandom(trial + 1)
      const before = randomPhotos(rnd, 20 + Math.floor(rnd() * 120), 1)
      const b = columns(before)
      const published = new Map<number, number>()
      stereoPartners(b).forEach((partner, r) => published.set(b.id[r]!, partner))
      // Some removed (a sol read again drops its rows), some added with new ids, spread over the minute or bunched.
      const removed = before.filter(() => rnd() < 0.1)
      const gone = new Set(removed.map((p) => p.id))
      const added = randomPhotos(rnd, Math.floor(rnd() * 12), 100_000).map((p) => (rnd() < 0.5 ? { ...p, sclk: Number.isNaN(p.sclk) ? p.sclk : 667130000 + 20 + Math.round(rnd() * 16) / 8 } : p)).map((p) => ({ ...p, nasaId: nasaIdOf(p.nasaId[1] as 'L' | 'R', p.nasaId[0]!, 59, Number.isNaN(p.sclk) ? 0 : p.sclk, p.sequence) }))
      const after = shuffle(rnd, [...before.filter((p) => !gone.has(p.id)), ...added])
      const addedIds = new Set(added.map((p) => p.id))
      const full = stereoPartners(columns(after))
      const kept: KeptRows = {
        fresh: Uint8Array.from(after.map((p) => (addedIds.has(p.id) ? 1 : 0))),
        changedSclk: Float64Array.from([...added, ...removed].map((p) => p.sclk).filter((s) => !Number.isNaN(s))).sort(),
      }
      const merged = stereoPartners(columns(after, published), kept)
      expect(Array.from(merged)).toEqual(Array.from(full))
      if (after.some((p, r) => !addedIds.has(p.id) && published.get(p.id) !== full[r])) changedSome++
    }
    // The trials did move kept rows' partners (else they prove nothing about the reach).
    expect(changedSome).toBeGreaterThan(30)
  })

  test('sequence ids: kept rows carry their served id over, new rows derive theirs; codes and dictionary are the full derivation\'s', () => {
    const rnd = seededRandom(7)
    const photos = shuffle(rnd, [...randomPhotos(rnd, 200, 1), ...randomPhotos(rnd, 30, 100_000)]).map((p, i) => ({ ...p, sequence: i % 3 === 0 ? '' : p.sequence.toLowerCase() }))
    const full = sequenceColumn(columns(photos))
    const served = new Map(photos.map((p, r) => [p.id, full.dict[full.codes[r]!]!]))
    const fresh = Uint8Array.from(photos.map((p) => (p.id >= 100_000 ? 1 : 0)))
    // Kept rows hold their served id, new rows their stated sequence (as the merge hands them over).
    const mixed = columns(photos, undefined, new Map(photos.filter((p) => p.id < 100_000).map((p) => [p.id, served.get(p.id)!])))
    const merged = sequenceColumn(mixed, { fresh, changedSclk: new Float64Array(0) })
    expect(merged.dict).toEqual(full.dict)
    expect(Array.from(merged.codes)).toEqual(Array.from(full.codes))
    expect(full.dict.length).toBeGreaterThan(2)
  })
})
