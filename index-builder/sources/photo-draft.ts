import type { PhotoRecord } from '../normalize/photo-record'
import type { Candidate } from '../normalize/dedupe-photos'
import { RecordError } from './source-error'
import { parseCount } from '../normalize/parse-tuple'
import { isIsoDate } from '../normalize/utc-time'

/** Helpers shared by the photo readers: checks that turn a bad field into a RecordError. */

export type PhotoDraft = Candidate

/** The record's sol: a non-negative integer, else the record is bad. */
export function requireSol(value: unknown): number {
  if (value === undefined || value === null || value === '') throw new RecordError('missing sol')
  const sol = parseCount(value)
  if (sol === undefined) throw new RecordError(`sol ${JSON.stringify(value)} is not a non-negative integer`)
  return sol
}

export function requireString(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.trim() === '') throw new RecordError(`missing ${field}`)
  return value.trim()
}

export function requireEarthDate(value: unknown): string {
  if (value === undefined || value === null || value === '') throw new RecordError('missing earth_date')
  if (!isIsoDate(value)) throw new RecordError(`earth_date ${JSON.stringify(value)} is not a YYYY-MM-DD date`)
  return value
}

/** Ids from 2^30 up are the builder's own (assign-ids.ts), so a v1 id must stay below. */
export const MAX_V1_ID = 2 ** 30 - 1

/** A v1 id: absent, or an integer in [1, 2^30) (v1's largest is 1.3 M; the rest is reserved for assigned ids). */
export function optionalId(value: unknown): number | undefined {
  if (value === undefined || value === null || value === '') return undefined
  const n = typeof value === 'string' && /^\d{1,10}$/.test(value.trim()) ? Number(value) : value
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > MAX_V1_ID) {
    throw new RecordError(`id ${JSON.stringify(value).slice(0, 40)} is not an integer in [1, 2^30) (ids from 2^30 up are reserved for photos without a v1 id)`)
  }
  return n
}

export function optionalText(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined
}

/**
 * Image URLs by size from one URL: M2020 browse products end `_320`, `_800`, `_1200` (small, medium,
 * large); anything else is the full image. Other sizes are not guessed.
 */
export function imagesFromUrl(url: string): PhotoRecord['images'] {
  const m = /_(320|800|1200)\.[a-z]+$/i.exec(url)
  if (!m) return { full: url }
  return m[1] === '320' ? { small: url } : m[1] === '800' ? { medium: url } : { large: url }
}

/** Drops undefined fields so records compare and serialise cleanly. */
export function compact<T extends object>(o: T): T {
  for (const k of Object.keys(o) as (keyof T)[]) if (o[k] === undefined) delete o[k]
  return o
}
