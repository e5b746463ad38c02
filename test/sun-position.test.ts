/**
 * The sun's position by Mars24, against the worked examples of the algorithm page
 * (https://www.giss.nasa.gov/tools/mars24/help/algorithm.html), example A: 2000-01-06 00:00 UTC
 * at 0° longitude, 0° latitude. The page has been revised: its current constants (B-1, B-2 of
 * 2015, those of ../normalize/mars24.ts) give αFMS 272.74566°, ν−M 4.44193°, Ls 277.18759°, MST
 * 23:59:39.057 and LTST 23:38:54.0 at Airy (the intermediate values as the Project Pluto
 * marstime.cpp test case reproduces them); the D steps (declination, subsolar longitude,
 * zenith angle, azimuth) are checked with the intermediate values the earlier edition printed
 * for the same instant (Ls 277.18677°, δs −25.22838°, subsolar longitude 174.72703° W, zenith
 * 154.26182°, azimuth 191.03687°), since they depend on those inputs only.
 */
import { describe, expect, test } from 'bun:test'
import { marsTimeAt } from '../index-builder/normalize/mars24'
import { planetographicLatitude, solarDeclination, sunInSky, sunPosition } from '../index-builder/sun/sun-position'

const EXAMPLE_A = Date.UTC(2000, 0, 6)
const hours = (h: number, m: number, s: number) => h + m / 60 + s / 3600

describe('Mars24 worked example A (2000-01-06 00:00 UTC, 0°E 0°N)', () => {
  test('time steps: Ls 277.18759°, MST 23:59:39.057, LTST at 0° 23:38:54.0', () => {
    const t = marsTimeAt(EXAMPLE_A, 0)
    expect(t.ls).toBeCloseTo(277.1875876, 4)
    // The reproduction starts from JD(TT) 2451549.50074, rounded 0.25 s below the instant: within 0.3 s.
    expect(Math.abs(t.mst - hours(23, 59, 39.057)) * 3600).toBeLessThan(0.3)
    expect(Math.abs(t.ltst - hours(23, 38, 53.998)) * 3600).toBeLessThan(0.3)
  })

  test('D-1 solar declination: −25.22838° at Ls 277.18677°, ±25.441° at the solstices, 0 at the equinoxes', () => {
    expect(Math.abs(solarDeclination(277.18677) - -25.22838)).toBeLessThan(1e-4) // printed to 5 decimals
    expect(Math.abs(solarDeclination(90) - 25.441)).toBeLessThan(1e-3)
    expect(Math.abs(solarDeclination(270) + 25.441)).toBeLessThan(1e-3)
    expect(solarDeclination(0)).toBeCloseTo(0, 9)
    expect(solarDeclination(180)).toBeCloseTo(0, 9)
  })

  test('D-5/D-6 at 0°N, subsolar longitude 174.72703° W: zenith 154.26182° (elevation −64.26182°), azimuth 191.03687°', () => {
    // At 0° W the hour angle west of the meridian is the subsolar point's longitude east of the place.
    const sky = sunInSky(-25.22838, 174.72703, 0)
    expect(sky.elevation).toBeCloseTo(90 - 154.26182, 4)
    expect(sky.azimuth).toBeCloseTo(191.03687, 4)
  })

  test('the whole chain at the example instant: the sun 64.3° below the horizon, south of west-south-west at 191.0°', () => {
    const sun = sunPosition(EXAMPLE_A, 0, 0)
    expect(sun.solarLongitude).toBeCloseTo(277.18759, 4)
    // From the current constants: δs(277.18759) and the LTST hour angle; within 0.01° of the earlier edition.
    expect(Math.abs(sun.elevation - (90 - 154.26182))).toBeLessThan(0.01)
    expect(Math.abs(sun.azimuth - 191.03687)).toBeLessThan(0.01)
  })
})

describe('sky geometry', () => {
  test('sun at the zenith when the place is the subsolar point; on the horizon 90° of hour angle away at the equinox', () => {
    expect(sunInSky(10, 0, 10).elevation).toBeCloseTo(90, 4) // asin loses digits at 90°
    expect(sunInSky(0, 90, 0).elevation).toBeCloseTo(0, 6)
    expect(sunInSky(0, 90, 0).azimuth).toBeCloseTo(270, 6) // 6 h after noon: west
    expect(sunInSky(0, -90, 0).azimuth).toBeCloseTo(90, 6) // 6 h before noon: east
  })

  test('at noon the sun is due north for a place south of the subsolar latitude, due south north of it', () => {
    expect(sunInSky(20, 0, -4.6).azimuth).toBeCloseTo(0, 6)
    expect(sunInSky(-20, 0, 18.4).azimuth).toBeCloseTo(180, 6)
    expect(sunInSky(20, 0, -4.6).elevation).toBeCloseTo(90 - 24.6, 6)
  })

  test('planetographic latitude: equal at the equator and poles, 0.33° larger at 45°', () => {
    expect(planetographicLatitude(0)).toBe(0)
    expect(planetographicLatitude(90)).toBe(90)
    const d = planetographicLatitude(45) - 45
    expect(d).toBeGreaterThan(0.32)
    expect(d).toBeLessThan(0.34)
    expect(planetographicLatitude(-4.5895)).toBeLessThan(-4.5895)
  })
})
