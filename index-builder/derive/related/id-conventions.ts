import type { RoverSlug } from '../../../src/catalog/rovers'

/**
 * What a NASA image id says about stereo eyes and observation sequences (SOURCES.md §4.5; the
 * conventions are written out in docs/derived-fields.md, "Stereo pairs and sequences").
 *
 * Perseverance  NLR_0002_0667130878_778ECM_N0010052AUT_04096_00_2I3J
 *               rig N (Navcam), F/R (front/rear Hazcams), Z (Mastcam-Z); eye L/R; colour/filter
 *               letter; sol; SCLK; product ECM; sampling letter, site 001 + drive 0052, then the
 *               9-character sequence (`NCAM00012`, `AUT_04096`).
 * Curiosity     NLB_678295181EDR_F0891974NCAM00353M_
 *               rig N/F/R, eye L/R, computer side A/B, SCLK, product, sampling letter, site + drive,
 *               then the sequence (`NCAM00353`; a PDS label states it as SEQUENCE_ID `ncam00353`).
 * MER           1N216958451EFF76ZFP1950L0M1
 *               rover 1/2, camera N/F/R/P, SCLK, product, site and drive codes, sequence `P1950`,
 *               eye L/R (N: one eye), filter, creator, version.
 */
export interface StereoEye {
  /** Everything of the id a partner shares: rig, side, filter, product and sampling letters, site/drive, sequence. */
  key: string
  eye: 'L' | 'R'
}

const M2020 = /^([NFRZ])([LR])([A-Z0-9])_(\d{4})_\d{10}_\d{3}([A-Z]{3})_(.+)$/
const MSL = /^([NFR])([LR])([AB])_\d{9}([A-Z]{3})_(.+)$/
const MER = /^([12])([NFRP])\d{9}([A-Z]{3})(.{4})([A-Z]\d{4})([LR])(.+)$/

/** The stereo rig, eye and shared product letters of an id, or undefined when its camera is not one eye of a stereo pair. */
export function stereoEye(rover: RoverSlug, id: string): StereoEye | undefined {
  if (rover === 'perseverance') {
    const m = M2020.exec(id)
    return m ? { key: `${m[1]}${m[3]}_${m[4]}_${m[5]}_${m[6]}`, eye: m[2] as 'L' | 'R' } : undefined
  }
  if (rover === 'curiosity') {
    const m = MSL.exec(id)
    return m ? { key: `${m[1]}${m[3]}_${m[4]}_${m[5]}`, eye: m[2] as 'L' | 'R' } : undefined
  }
  const m = MER.exec(id)
  return m ? { key: `${m[1]}${m[2]}_${m[3]}_${m[4]}_${m[5]}_${m[7]}`, eye: m[6] as 'L' | 'R' } : undefined
}

const M2020_SEQUENCE = /^[A-Z0-9]{3}_\d{4}_\d{10}_\d{3}[A-Z]{3}_[A-Z]\d{7}([A-Z0-9_]{9})/
// Sequence names are 4 letters and 5 digits (`NCAM00353`) or 3 letters, `_` and 5 digits (`AUT_04096`, `SSS_15831`).
const MSL_SEQUENCE = /^[A-Z]{2}[A-Z0-9]_\d{9}[A-Z]{3}_[A-Z]\d{7}([A-Z]{3}[A-Z_]\d{5})/
const MER_SEQUENCE = /^[12][A-Z]\d{9}[A-Z]{3}.{4}([A-Z]\d{4})[LRN]/

/** The observation sequence an id encodes, upper-case (`NCAM00353`), or undefined (MSSS ids encode none we can read). */
export function sequenceOfId(rover: RoverSlug, id: string): string | undefined {
  const re = rover === 'perseverance' ? M2020_SEQUENCE : rover === 'curiosity' ? MSL_SEQUENCE : MER_SEQUENCE
  return re.exec(id)?.[1]
}
