import type { RoverSlug } from '../../src/catalog/rovers'
import { sampleTypeFromLetter } from './sample-type'
import { digitsAt } from './ascii-digits'

/**
 * What a NASA image id encodes (SOURCES.md §4.5), and nothing more.
 *
 * Perseverance  NLF_0100_0675828717_276ECM_N0040218NCAM00503_01_295J
 *               camera NL, colour letter F, sol 0100, SCLK 0675828717, product ECM, then a letter and
 *               site 004 + drive 0218. The third letter is a colour/filter code (F, M, R, G, B, E, digits
 *               for Mastcam-Z filters), not a sample type: v1, which kept only `Full` products, holds every
 *               letter. So no sample type is read from a Perseverance id.
 * Curiosity     FLB_486265257EDR_F0481570FHAZ00323M_  (engineering cameras, ChemCam)
 *               camera FL, string B, SCLK 486265257, product EDR, sampling letter F (F full, S subframe,
 *               D downsampled, T thumbnail), site 048, drive 1570. Product PRC (ChemCam processed) is the
 *               feed's sample type "chemcam prc" whatever the letter (SOURCES.md §4.2 record CR0_…PRC_F…).
 *               MSSS ids (3728MH0001730011303550C00_DXXX) give the sol and camera only.
 * MER           1N216958451EFF76ZFP1950L0M1
 *               rover 1/2, camera letter, SCLK 216958451, product type EFF/ESF/EDN/ETH (full frame,
 *               subframe, downsampled, thumbnail: MER camera EDR SIS product types). Site and drive are
 *               two-character alphanumeric codes whose decoding is not documented in our sources: left out.
 */
export interface ImageIdFields {
  sol?: number
  sclk?: number
  site?: number
  drive?: number
  sample_type?: string
  /** The raw sampling letter / product code the sample type came from. */
  sample_code?: string
}

const M2020 = /^[A-Z0-9]{3}_(\d{4})_(\d{10})_\d{3}[A-Z]{3}_[A-Z](\d{3})(\d{4})/
const M2020_NO_RMC = /^[A-Z0-9]{3}_(\d{4})_(\d{10})_/
const MSL_ENG = /^[A-Z]{2}[A-Z0-9]_(\d{9})([A-Z]{3})_([A-Z])(\d{3})(\d{4})/
const MSSS = /^(\d{4})(ML|MR|MH|MD)\d/
const MER = /^[12][A-Z](\d{9})([A-Z]{3})/

const MER_PRODUCT: Record<string, string> = { EFF: 'F', ESF: 'S', EDN: 'D', ETH: 'T' }

export function parseImageId(rover: RoverSlug, id: string): ImageIdFields {
  if (rover === 'perseverance') return perseveranceId(id)
  if (rover === 'curiosity') {
    const m = MSL_ENG.exec(id)
    if (m) {
      const out: ImageIdFields = { sclk: Number(m[1]), site: Number(m[4]), drive: Number(m[5]) }
      if (m[2] === 'PRC') {
        out.sample_type = 'ChemCam PRC'
        out.sample_code = 'PRC'
      } else {
        const st = sampleTypeFromLetter(m[3]!)
        if (st) {
          out.sample_type = st
          out.sample_code = m[3]
        }
      }
      return out
    }
    const s = MSSS.exec(id)
    return s ? { sol: Number(s[1]) } : {}
  }
  const m = MER.exec(id)
  if (!m) return {}
  const out: ImageIdFields = { sclk: Number(m[1]) }
  const letter = MER_PRODUCT[m[2]!]
  if (letter) {
    out.sample_type = sampleTypeFromLetter(letter)
    out.sample_code = m[2]
  }
  return out
}

/**
 * A Perseverance id by its fixed character positions: what M2020 (else M2020_NO_RMC) matches,
 * without a match array and four number parses. A build reads each record's id several times
 * (normalising, the clock fit, the stated values, the derived fields, the merge state), ~7
 * million ids at 1.5 million records, where the regular expressions cost ~1 CPU second a
 * 300,000. The expressions stay the definition (test/derivations.test.ts checks both agree).
 */
function perseveranceId(id: string): ImageIdFields {
  // [A-Z0-9]{3}_(\d{4})_(\d{10})_
  if (id.length < 20 || !upperOrDigit(id, 0) || !upperOrDigit(id, 1) || !upperOrDigit(id, 2)) return {}
  if (id.charCodeAt(3) !== 95 || id.charCodeAt(8) !== 95 || id.charCodeAt(19) !== 95) return {}
  const sol = digitsAt(id, 4, 8)
  const sclk = digitsAt(id, 9, 19)
  if (sol < 0 || sclk < 0) return {}
  // \d{3}[A-Z]{3}_[A-Z](\d{3})(\d{4})
  if (id.length >= 35 && digitsAt(id, 20, 23) >= 0 && upper(id, 23) && upper(id, 24) && upper(id, 25) && id.charCodeAt(26) === 95 && upper(id, 27)) {
    const site = digitsAt(id, 28, 31)
    const drive = digitsAt(id, 31, 35)
    if (site >= 0 && drive >= 0) return { sol, sclk, site, drive }
  }
  return { sol, sclk }
}

function upper(s: string, i: number): boolean {
  const c = s.charCodeAt(i)
  return c >= 65 && c <= 90
}

function upperOrDigit(s: string, i: number): boolean {
  const c = s.charCodeAt(i)
  return (c >= 65 && c <= 90) || (c >= 48 && c <= 57)
}

/** The regular expressions perseveranceId reads by position (for the test that both agree). */
export const PERSEVERANCE_ID_FORMS = { M2020, M2020_NO_RMC }
