/**
 * The two NASA raw-feed page formats (SOURCES.md §4.1 Perseverance raw_images, §4.2 Curiosity
 * raw_image_items), detected by content and normalised into the expected records.
 */
import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { DEFAULT_SOURCE_DIRS } from '../index-builder/sources/read-sources'
import { readSources } from '../index-builder/normalize/normalize-sources'
import { assignedIdFor } from '../index-builder/normalize/assign-ids'
import type { PhotoRecord } from '../index-builder/normalize/photo-record'

const DIR = path.join(import.meta.dir, 'fixtures/feeds')
const M2020 = path.join(DIR, 'm2020-raw-images-page.json')
const MSL = path.join(DIR, 'msl-raw-image-items-page.json')
const m2020Page = JSON.parse(readFileSync(M2020, 'utf8'))
const mslPage = JSON.parse(readFileSync(MSL, 'utf8'))

/** The record without `raw`, and `raw` checked to be the source item. */
function withoutRaw(r: PhotoRecord, sourceItem: unknown): Omit<PhotoRecord, 'raw'> {
  expect(JSON.parse(r.raw!)).toEqual(sourceItem)
  const { raw: _raw, ...rest } = r
  return rest
}

const NCAM = 'https://mars.nasa.gov/mars2020-raw-images/pub/ods/surface/sol/01646/ids/edr/browse/ncam/NRF_1646_0813073669_097ECM_N0791204NCAM00400_01_195J01'
const ZCAM = 'https://mars.nasa.gov/mars2020-raw-images/pub/ods/surface/sol/01646/ids/edr/browse/zcam/ZLF_1646_0813075012_583EBY_N0791204ZCAM09312_1100LMJ01'
const MSL_DIR = 'https://mars.nasa.gov/msl-raw-images/proj/msl/redops/ods/surface/sol/04681/opgs/edr'

describe('Perseverance raw_images page (§4.1)', async () => {
  const r = await readSources([M2020])
  const src = 'test/fixtures/feeds/m2020-raw-images-page.json'

  test('is detected by content and read as m2020-raw-images: 3 images, 2 photos, HELI_NAV unmapped and counted', () => {
    expect(r.sources).toEqual([{ path: src, format: 'm2020-raw-images', records: 3, photos: 2, skipped: 0 }])
    expect(r.unmapped).toEqual([{ rover: 'perseverance', instrument: 'HELI_NAV', photos: 1 }])
    expect(r.checks.imageIdVsUrl).toEqual([])
  })

  test('the quoted real record normalises with site/drive/xyz/mast angles, dimension (not subframe) and all 4 sizes', () => {
    const id = 'NRF_1646_0813073669_097ECM_N0791204NCAM00400_01_195J'
    expect(withoutRaw(r.records.find((x) => x.nasa_id === id)!, m2020Page.images[0])).toEqual({
      id: assignedIdFor(id),
      rover: 'perseverance',
      camera: 'NAVCAM_RIGHT',
      nasa_id: id,
      sol: 1646,
      earth_date: '2025-10-07',
      date_taken_utc: Date.parse('2025-10-07T02:08:38Z'),
      date_taken_mars: 'Sol-01646M15:18:15',
      mars_time_ms: ((15 * 60 + 18) * 60 + 15) * 1000,
      sample_type: 'Full',
      width: 1288,
      height: 968,
      site: 79,
      drive: 1204,
      xyz: [35.4362, 22.5714, -9.46445],
      mast_azimuth: 360 - 156.098, // the feed's −156.098, normalised into [0, 360)
      mast_elevation: -10.1652,
      sclk: 813073669.716,
      date_received: Date.parse('2025-10-07T13:35:54Z'), // stated by the record
      images: { small: `${NCAM}_320.jpg`, medium: `${NCAM}_800.jpg`, large: `${NCAM}_1200.jpg`, full: `${NCAM}.png` },
      title: 'Mars Perseverance Sol 1646: Right Navigation Camera (Navcam)',
      caption: "NASA's Mars Perseverance rover acquired this image using its onboard Right Navigation Camera (Navcam).",
      credit: 'NASA/JPL-Caltech',
      source: src,
    })
  })

  test('a thumbnail without dimension: size from subframeRect ÷ scaleFactor, "UNK" mast angles left out, sample type capitalised', () => {
    const id = 'ZLF_1646_0813075012_583EBY_N0791204ZCAM09312_1100LMJ'
    expect(withoutRaw(r.records.find((x) => x.nasa_id === id)!, m2020Page.images[1])).toEqual({
      id: assignedIdFor(id),
      rover: 'perseverance',
      camera: 'MCZ_LEFT',
      nasa_id: id,
      sol: 1646,
      earth_date: '2025-10-07',
      date_taken_utc: Date.parse('2025-10-07T02:31:01.229Z'),
      date_taken_mars: 'Sol-01646M15:40:03.612',
      mars_time_ms: ((15 * 60 + 40) * 60 + 3) * 1000 + 612,
      sample_type: 'Thumbnail',
      width: 412,
      height: 300,
      site: 79,
      drive: 1204,
      xyz: [35.4362, 22.5714, -9.46445],
      sclk: 813075012.583,
      images: { medium: `${ZCAM}_800.jpg`, full: `${ZCAM}.png` },
      title: 'Mars Perseverance Sol 1646: Left Mastcam-Z Camera',
      caption: "NASA's Mars Perseverance rover acquired this image using its Left Mastcam-Z camera.",
      credit: 'NASA/JPL-Caltech/ASU',
      source: src,
    })
  })
})

describe('Curiosity raw_image_items page (§4.2)', async () => {
  const r = await readSources([MSL])
  const src = 'test/fixtures/feeds/msl-raw-image-items-page.json'
  const get = (id: string) => r.records.find((x) => x.nasa_id === id)!

  test('is detected by content and read as msl-raw-image-items: 3 items, 3 photos', () => {
    expect(r.sources).toEqual([{ path: src, format: 'msl-raw-image-items', records: 3, photos: 3, skipped: 0 }])
    expect(r.unmapped).toEqual([])
    expect(r.checks.imageIdVsUrl).toEqual([])
  })

  test('the quoted ChemCam record: CHEMCAM_RMI → CHEMCAM, "chemcam prc" → ChemCam PRC, LMST from extended.lmst', () => {
    const id = 'CR0_813038955PRC_F1191344CCAM03681L1'
    expect(withoutRaw(get(id), mslPage.items[0])).toEqual({
      id: assignedIdFor(id),
      rover: 'curiosity',
      camera: 'CHEMCAM',
      nasa_id: id,
      sol: 4681,
      earth_date: '2025-10-06',
      date_taken_utc: Date.parse('2025-10-06T17:16:46Z'),
      date_taken_mars: 'Sol-04681M10:40:32.355',
      mars_time_ms: ((10 * 60 + 40) * 60 + 32) * 1000 + 355,
      sample_type: 'ChemCam PRC',
      width: 1024,
      height: 1024,
      site: 119,
      drive: 1344,
      xyz: [-14.4449, 44.2653, 2.908],
      mast_azimuth: 346.566,
      mast_elevation: -44.9492,
      sclk: 813038955.646,
      date_received: Date.parse('2025-10-07T11:12:08Z'), // stated without an offset: read as UTC, like date_taken
      images: { full: `${MSL_DIR}/ccam/${id}.PNG` },
      title: 'Sol 4681: Chemistry & Camera',
      caption: "This image was taken by the Chemistry & Camera (ChemCam) onboard NASA's Mars rover Curiosity on Sol 4681.",
      credit: 'NASA/JPL-Caltech/LANL',
      source: src,
    })
  })

  test('NAV_LEFT_B → NAVCAM, downsampled → Downsampled, subframe_rect w,h scaled by scale_factor 4', () => {
    const x = get('NLB_813041209EDR_D1191344NCAM00200M_')
    expect([x.camera, x.sample_type, x.width, x.height, x.mast_azimuth, x.mast_elevation]).toEqual(['NAVCAM', 'Downsampled', 256, 256, 121.004, -30.5531])
    expect([x.site, x.drive, x.earth_date, x.date_taken_mars]).toEqual([119, 1344, '2025-10-06', 'Sol-04681M11:17:06.127'])
    expect(x.images).toEqual({ full: `${MSL_DIR}/ncam/NLB_813041209EDR_D1191344NCAM00200M_.JPG` })
  })

  test('FHAZ_RIGHT_B → FHAZ, full → Full, null mast angles left out, null mast angles and the absent description left out', () => {
    const x = get('FRB_813041500EDR_F1191344FHAZ00201M_')
    expect([x.camera, x.sample_type, x.width, x.height]).toEqual(['FHAZ', 'Full', 1024, 1024])
    expect('mast_azimuth' in x || 'mast_elevation' in x || 'caption' in x).toBe(false)
  })

  test('both pages together with the real folder: ids stay unique and the feed photos add to the real ones', async () => {
    const all = await readSources([...DEFAULT_SOURCE_DIRS, M2020, MSL])
    const real = await readSources()
    expect(all.records.length).toBe(real.records.length + 5)
    expect(new Set(all.records.map((x) => x.id)).size).toBe(all.records.length)
  }, 90_000)
})
