/**
 * The PDS3 label (ODL/PVL) parser: the constructs the real EDR labels use, and malformed or hostile
 * labels as errors with their line, never a crash or a wrong value.
 */
import { describe, expect, test } from 'bun:test'
import { parsePvl, PvlError, pvlBlock, pvlGet, pvlNumber, pvlString } from '../index-builder/sources/pds3/parse-pvl'
import { nasaIdOfProduct, readPds3Label } from '../index-builder/sources/pds3/curiosity-vo'
import { RecordError } from '../index-builder/sources/source-error'

const LABEL = `PDS_VERSION_ID = PDS3
/* a comment
   over two lines */
PRODUCT_ID = "NLA_406373677EDR_D0050104TRAV00024M1"
INSTRUMENT_ID = "NAV_LEFT_A"
PRODUCER_INSTITUTION_NAME = "MULTIMISSION INSTRUMENT PROCESSING
                             LAB, JET PROPULSION LAB"
MSL:LOCAL_MEAN_SOLAR_TIME = "Sol-00100M13:27:15.076"
^IMAGE = ("NLA_406373677EDR_D0050104TRAV00024M1.IMG"
          ,79)
PLANET_DAY_NUMBER = 100
START_TIME = 2012-11-16T21:38:10.723
SPACECRAFT_CLOCK_START_COUNT = "406373677.663"
ROVER_MOTION_COUNTER = (5,104,134,4834,1948,0,4978,6712,0,66)
ROVER_MOTION_COUNTER_NAME = ("SITE","DRIVE","POSE","ARM","CHIMRA",
                             "DRILL","RSM","HGA","DRT","IC")
SET = {RED, GREEN}
LITERAL = 'a symbol, quoted'
GROUP = SUBFRAME_REQUEST_PARMS
  LINES = 1024
  LINE_SAMPLES = 1024
END_GROUP = SUBFRAME_REQUEST_PARMS
GROUP = ROVER_DERIVED_GEOMETRY_PARMS
  INSTRUMENT_AZIMUTH = 44.9548 <deg>
  INSTRUMENT_ELEVATION = -28.5174 <deg>
END_GROUP = ROVER_DERIVED_GEOMETRY_PARMS
GROUP = SITE_DERIVED_GEOMETRY_PARMS
  INSTRUMENT_AZIMUTH = 322.696 <deg>
  INSTRUMENT_ELEVATION = -24.2924 <deg>
END_GROUP = SITE_DERIVED_GEOMETRY_PARMS
OBJECT = IMAGE
  LINES = 256
  LINE_SAMPLES = 256
END_OBJECT = IMAGE
END
`

describe('PVL syntax', () => {
  const l = parsePvl(LABEL)
  test('comments, namespaced and pointer keys, quoted strings folded across lines, lists continued on the next line, sets, units', () => {
    expect(pvlString(pvlGet(l, 'PRODUCT_ID'))).toBe('NLA_406373677EDR_D0050104TRAV00024M1')
    expect(pvlGet(l, 'PRODUCER_INSTITUTION_NAME')).toBe('MULTIMISSION INSTRUMENT PROCESSING LAB, JET PROPULSION LAB')
    expect(pvlGet(l, 'MSL:LOCAL_MEAN_SOLAR_TIME')).toBe('Sol-00100M13:27:15.076')
    expect(pvlGet(l, '^IMAGE')).toEqual(['NLA_406373677EDR_D0050104TRAV00024M1.IMG', 79])
    expect(pvlGet(l, 'ROVER_MOTION_COUNTER_NAME')).toEqual(['SITE', 'DRIVE', 'POSE', 'ARM', 'CHIMRA', 'DRILL', 'RSM', 'HGA', 'DRT', 'IC'])
    expect(pvlGet(l, 'SET')).toEqual(['RED', 'GREEN'])
    expect(pvlGet(l, 'LITERAL')).toBe('a symbol, quoted')
    expect(pvlGet(l, 'START_TIME')).toBe('2012-11-16T21:38:10.723')
    expect(pvlNumber(pvlGet(l, 'SPACECRAFT_CLOCK_START_COUNT'))).toBe(406373677.663)
    expect(pvlGet(pvlBlock(l, 'GROUP', 'ROVER_DERIVED_GEOMETRY_PARMS')!, 'INSTRUMENT_AZIMUTH')).toEqual({ value: 44.9548, unit: 'deg' })
  })

  test('the same key in different groups stays apart: the image size is the one in OBJECT = IMAGE', () => {
    expect(pvlNumber(pvlGet(pvlBlock(l, 'OBJECT', 'IMAGE')!, 'LINES'))).toBe(256)
    expect(pvlNumber(pvlGet(pvlBlock(l, 'GROUP', 'SUBFRAME_REQUEST_PARMS')!, 'LINES'))).toBe(1024)
    expect(pvlGet(l, 'LINES')).toBeUndefined()
  })

  test('malformed labels are errors with their line', () => {
    const cases: Array<[string, string]> = [
      ['A = "open\nB = 1\n', 'line 1: unterminated quoted string'],
      ['/* open\nA = 1\n', 'line 1: unterminated comment'],
      ['A = (1, 2\nEND\n', 'line 2: expected "," or ")" in a list, found "END"'],
      ['GROUP = G\nA = 1\nEND_OBJECT = G\n', 'line 3: END_OBJECT closes GROUP G'],
      ['GROUP = G\nA = 1\nEND_GROUP = H\n', 'line 3: END_GROUP = H closes GROUP G'],
      ['GROUP = G\nA = 1\n', 'line 3: GROUP G has no END_GROUP'],
      ['A = \n', 'line 2: expected a value, found end of label'],
    ]
    for (const [text, message] of cases) {
      const e = (() => { try { parsePvl(text); return undefined } catch (x) { return x } })()
      expect(e).toBeInstanceOf(PvlError)
      expect((e as Error).message).toBe(message)
    }
  })

  test('hostile nesting is bounded: 10,000 nested groups or lists are an error, not a stack overflow', () => {
    expect(() => parsePvl('GROUP = G\n'.repeat(10_000))).toThrow('blocks nested deeper than 16')
    expect(() => parsePvl(`A = ${'('.repeat(10_000)}`)).toThrow('lists nested deeper than 8')
  })
})

describe('PDS3 EDR label to photo facts', () => {
  test('stated UTC, LMST, SCLK, site/drive by ROVER_MOTION_COUNTER_NAME, rover-frame angles, IMAGE size; the product version digit becomes _', () => {
    expect(readPds3Label(LABEL)).toEqual({
      nasa_id: 'NLA_406373677EDR_D0050104TRAV00024M_',
      instrument: 'NAV_LEFT_A',
      sol: 100,
      date_taken_utc: Date.parse('2012-11-16T21:38:10.723Z'),
      date_taken_mars: 'Sol-00100M13:27:15.076',
      sclk: 406373677.663,
      site: 5,
      drive: 104,
      mast_azimuth: 44.9548,
      mast_elevation: -28.5174,
      width: 256,
      height: 256,
    })
    expect(nasaIdOfProduct('NLA_406373677EDR_D0050104TRAV00024M1')).toBe('NLA_406373677EDR_D0050104TRAV00024M_')
  })

  test('a label without PRODUCT_ID, or one that does not parse, is a record error', () => {
    expect(() => readPds3Label('INSTRUMENT_ID = "NAV_LEFT_A"\nEND\n')).toThrow(RecordError)
    expect(() => readPds3Label('PRODUCT_ID = "X\n')).toThrow('malformed PDS3 label: line 1: unterminated quoted string')
  })
})
