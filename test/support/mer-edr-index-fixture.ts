import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

/**
 * A MER EDR index written to the PDS3 standard, for tests: the label (`edrindex.lbl`, ODL with
 * an INDEX_TABLE object and one COLUMN object per column: NAME, DATA_TYPE, START_BYTE, BYTES, and
 * ITEMS/ITEM_BYTES/ITEM_OFFSET for ROVER_MOTION_COUNTER) and the table it points at
 * (`edrindex.tab`: fixed-length ASCII rows ended by CR LF, fields separated by tabs, CHARACTER
 * values in double quotes, START_BYTE pointing inside the quotes as PDS3 does).
 *
 * The 55 columns, their order and their widths are those of the first row of the Opportunity
 * Pancam volume mer1po_0xxx as quoted in full by the mars-vista MER investigation, whose first
 * three rows SOURCES.md §4.3 quotes (5 of 55 columns). Row 1 is that quoted row; rows 2 and 3
 * hold what §4.3 quotes of them and what their place says (volume, its path, sol 1, rover MER1),
 * and leave every other column blank, as nothing states it.
 */
export type ColumnType = 'CHARACTER' | 'ASCII_INTEGER' | 'ASCII_REAL' | 'TIME'
export interface FixtureColumn {
  name: string
  type: ColumnType
  /** Width of one value (inside the quotes for CHARACTER). */
  bytes: number
  items?: number
}
export type FixtureRow = Record<string, string | string[]>

const C = (name: string, bytes: number): FixtureColumn => ({ name, type: 'CHARACTER', bytes })
const I = (name: string, bytes: number): FixtureColumn => ({ name, type: 'ASCII_INTEGER', bytes })
const R = (name: string, bytes: number): FixtureColumn => ({ name, type: 'ASCII_REAL', bytes })
const T = (name: string): FixtureColumn => ({ name, type: 'TIME', bytes: 20 })

export const MER_EDR_COLUMNS: FixtureColumn[] = [
  C('VOLUME_ID', 11), C('DATA_SET_ID', 40), C('INSTRUMENT_HOST_ID', 4), C('INSTRUMENT_ID', 18), C('PATH_NAME', 65),
  C('FILE_NAME', 32), C('RELEASE_ID', 4), C('PRODUCT_ID', 27), T('PRODUCT_CREATION_TIME'), C('TARGET_NAME', 6),
  C('MISSION_PHASE_NAME', 30), I('PLANET_DAY_NUMBER', 4), T('START_TIME'), T('STOP_TIME'), T('EARTH_RECEIVED_START_TIME'),
  T('EARTH_RECEIVED_STOP_TIME'), C('SPACECRAFT_CLOCK_START', 30), C('SPACECRAFT_CLOCK_STOP', 30), C('SEQUENCE_ID', 30),
  C('OBSERVATION_ID', 20), C('LOCAL_TRUE_SOLAR_TIME', 12), I('LINES', 4), I('LINE_SAMPLES', 4), I('FIRST_LINE', 4),
  I('FIRST_LINE_SAMPLE', 4), C('INSTRUMENT_SERIAL_NUMBER', 4), C('INSTRUMENT_MODE_ID', 20), R('INST_CMPRS_RATIO', 12),
  I('INST_CMPRS_MODE', 4), C('INST_CMPRS_FILTER', 1), C('IMAGE_ID', 12), C('IMAGE_TYPE', 10), R('EXPOSURE_DURATION', 13),
  I('ERROR_PIXELS', 11), C('FILTER_NAME', 22), I('FILTER_NUMBER', 4), C('FRAME_ID', 5), C('FRAME_TYPE', 6),
  R('AZIMUTH_FOV', 10), R('ELEVATION_FOV', 10), R('SITE_INSTRUMENT_AZIMUTH', 10), R('SITE_INSTRUMENT_ELEVATION', 10),
  R('ROVER_INSTRUMENT_AZIMUTH', 10), R('ROVER_INSTRUMENT_ELEVATION', 10), R('SOLAR_AZIMUTH', 11), R('SOLAR_ELEVATION', 11),
  R('SOLAR_LONGITUDE', 11), I('APPLICATION_PROCESS_ID', 4), C('REFERENCE_COORD_SYSTEM_NAME', 20), C('TELEMETRY_SOURCE_NAME', 60),
  { name: 'ROVER_MOTION_COUNTER', type: 'ASCII_INTEGER', bytes: 6, items: 5 }, C('FLAT_FIELD_CORRECTION_FLAG', 1),
  C('SHUTTER_EFFECT_CORRECTION_FLAG', 1), I('PIXEL_AVERAGING_HEIGHT', 4), I('PIXEL_AVERAGING_WIDTH', 4),
]

const VOLUME = {
  VOLUME_ID: 'mer1po_0xxx',
  DATA_SET_ID: 'MER1-M-PANCAM-2-EDR-OPS-V1.0',
  INSTRUMENT_HOST_ID: 'MER1',
  PATH_NAME: '/mer1po_0xxx/data/sol0001/edr/',
  PLANET_DAY_NUMBER: '1',
}

/** The three rows SOURCES.md §4.3 quotes, the first in full. */
export const SECTION_4_3_ROWS: FixtureRow[] = [
  {
    ...VOLUME,
    INSTRUMENT_ID: 'PANCAM_LEFT', FILE_NAME: '1p128287181eff0000p2303l2m1.img', RELEASE_ID: '0001', PRODUCT_ID: '1P128287181EFF0000P2303L2M1',
    PRODUCT_CREATION_TIME: '2004-06-03T06:47:07Z', TARGET_NAME: 'MARS', MISSION_PHASE_NAME: 'PRIMARY MISSION',
    START_TIME: '2004-01-25T07:18:28Z', STOP_TIME: '2004-01-25T07:18:28Z', EARTH_RECEIVED_START_TIME: '2004-01-25T09:18:26Z',
    EARTH_RECEIVED_STOP_TIME: '2004-01-25T09:18:51Z', SPACECRAFT_CLOCK_START: '128287181.621', SPACECRAFT_CLOCK_STOP: '128287181.841',
    SEQUENCE_ID: 'p2303', OBSERVATION_ID: '0', LOCAL_TRUE_SOLAR_TIME: '15:32:30', LINES: '1024', LINE_SAMPLES: '1024',
    FIRST_LINE: '1', FIRST_LINE_SAMPLE: '1', INSTRUMENT_SERIAL_NUMBER: '115', INSTRUMENT_MODE_ID: 'FULL_FRAME',
    INST_CMPRS_RATIO: '14.961700', INST_CMPRS_MODE: '2', INST_CMPRS_FILTER: 'A', IMAGE_ID: '1001043', IMAGE_TYPE: 'REGULAR',
    EXPOSURE_DURATION: '220.160000', ERROR_PIXELS: '71', FILTER_NAME: 'PANCAM_L2_753NM', FILTER_NUMBER: '2', FRAME_ID: 'LEFT',
    FRAME_TYPE: 'MONO', AZIMUTH_FOV: '15.841200', ELEVATION_FOV: '15.841200', SITE_INSTRUMENT_AZIMUTH: '-173.73300',
    SITE_INSTRUMENT_ELEVATION: '-6.212310', ROVER_INSTRUMENT_AZIMUTH: '-173.88800', ROVER_INSTRUMENT_ELEVATION: '-1.280280',
    SOLAR_AZIMUTH: '260.595000', SOLAR_ELEVATION: '36.723700', SOLAR_LONGITUDE: '-20.846500', APPLICATION_PROCESS_ID: '21',
    REFERENCE_COORD_SYSTEM_NAME: 'ROVER_FRAME', TELEMETRY_SOURCE_NAME: '021_001_p2303-004-0003_003_0128287181-159.dat',
    ROVER_MOTION_COUNTER: ['0', '0', '1', '34', '0'], FLAT_FIELD_CORRECTION_FLAG: '0', SHUTTER_EFFECT_CORRECTION_FLAG: '1',
    PIXEL_AVERAGING_HEIGHT: '1', PIXEL_AVERAGING_WIDTH: '1',
  },
  {
    ...VOLUME,
    INSTRUMENT_ID: 'PANCAM_LEFT', FILE_NAME: '1p128287181erp0000p2303l2m1.img', PRODUCT_ID: '1P128287181ERP0000P2303L2M1',
    START_TIME: '2004-01-25T07:18:28Z', FILTER_NAME: 'PANCAM_L2_753NM',
  },
  {
    ...VOLUME,
    INSTRUMENT_ID: 'PANCAM_LEFT', FILE_NAME: '1p128287214edn0000p2303l5m1.img', PRODUCT_ID: '1P128287214EDN0000P2303L5M1',
    START_TIME: '2004-01-25T07:19:01Z', FILTER_NAME: 'PANCAM_L5_535NM',
  },
]

export interface IndexFiles {
  label: string
  table: string
  rowBytes: number
}

/** The label and table of `rows` in `columns` (ROWS = rows.length unless the test edits the label). */
export function merEdrIndex(rows: FixtureRow[] = SECTION_4_3_ROWS, columns: FixtureColumn[] = MER_EDR_COLUMNS): IndexFiles {
  const starts: number[] = []
  let at = 0
  const fields = columns.map((c) => {
    const items = c.items ?? 1
    starts.push(at + (c.type === 'CHARACTER' ? 2 : 1))
    const width = c.type === 'CHARACTER' ? c.bytes + 2 : items * c.bytes + (items - 1)
    at += width + 1 // the tab after it (the last column's is the CR)
    return width
  })
  const rowBytes = at + 1 // … CR LF
  const line = (row: FixtureRow) =>
    columns
      .map((c) => {
        const v = row[c.name] ?? (c.items ? Array(c.items).fill('') : '')
        const pad = (s: string) => {
          if (s.length > c.bytes) throw new Error(`fixture: ${c.name} value ${s} is wider than ${c.bytes}`)
          return s.padEnd(c.bytes)
        }
        if (Array.isArray(v)) return v.map(pad).join('\t')
        return c.type === 'CHARACTER' ? `"${pad(v)}"` : pad(v)
      })
      .join('\t') + '\r\n'
  const table = rows.map(line).join('')
  const col = (c: FixtureColumn, i: number) => {
    const lines = [
      '  OBJECT                     = COLUMN',
      `    COLUMN_NUMBER            = ${i + 1}`,
      `    NAME                     = ${c.name}`,
      `    DATA_TYPE                = ${c.type}`,
      `    START_BYTE               = ${starts[i]}`,
      `    BYTES                    = ${fields[i]! - (c.type === 'CHARACTER' ? 2 : 0)}`,
    ]
    if (c.items) lines.push(`    ITEMS                    = ${c.items}`, `    ITEM_BYTES               = ${c.bytes}`, `    ITEM_OFFSET              = ${c.bytes + 1}`)
    lines.push(`    DESCRIPTION              = "${c.name.toLowerCase().replace(/_/g, ' ')}"`, '  END_OBJECT                 = COLUMN')
    return lines.join('\r\n')
  }
  const label = [
    'PDS_VERSION_ID               = PDS3',
    'RECORD_TYPE                  = FIXED_LENGTH',
    `RECORD_BYTES                 = ${rowBytes}`,
    `FILE_RECORDS                 = ${rows.length}`,
    '^INDEX_TABLE                 = "EDRINDEX.TAB"',
    'DATA_SET_ID                  = "MER1-M-PANCAM-2-EDR-OPS-V1.0"',
    'VOLUME_ID                    = MER1PO_0XXX',
    'INSTRUMENT_HOST_NAME         = "MARS EXPLORATION ROVER 1"',
    '/* The index of the EDR products of this volume, one row per product. */',
    'OBJECT                       = INDEX_TABLE',
    '  INTERCHANGE_FORMAT         = ASCII',
    `  ROWS                       = ${rows.length}`,
    `  COLUMNS                    = ${columns.length}`,
    `  ROW_BYTES                  = ${rowBytes}`,
    '  INDEX_TYPE                 = SINGLE',
    ...columns.map(col),
    'END_OBJECT                   = INDEX_TABLE',
    'END',
    '',
  ].join('\r\n')
  return { label, table, rowBytes }
}

/** Writes `edrindex.lbl` and `edrindex.tab` (lower case, as the volumes name them) into `dir`; returns dir. */
export function writeMerEdrIndex(dir: string, files: Pick<IndexFiles, 'label' | 'table'> | { label: string; table: Uint8Array }): string {
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'edrindex.lbl'), files.label)
  writeFileSync(join(dir, 'edrindex.tab'), files.table)
  return dir
}
