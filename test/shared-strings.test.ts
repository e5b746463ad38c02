import { describe, expect, test } from 'bun:test'
import { normalizeSources } from '../index-builder/normalize/normalize-sources'
import { readSourceFiles } from '../index-builder/sources/read-sources'
import { SharedStrings } from '../index-builder/sources/shared-strings'

/**
 * The builder keeps one copy of each repeated title, caption, credit, camera and sample type
 * among the records it reads (shared-strings.ts), to hold less from the read to the photo table.
 * Sharing equal strings must change nothing the index is made of: the bundled sources read
 * with and without it give the same records, field for field, and the same normalised photos.
 */
describe('repeated texts shared while reading', () => {
  const shared = readSourceFiles()
  const own = readSourceFiles(undefined, { shareStrings: false })

  test('the bundled sources read with shared texts give the same drafts, in the same order, as read with their own copies', () => {
    expect(shared.drafts.length).toBeGreaterThan(10_000)
    expect(shared.drafts.length).toBe(own.drafts.length)
    for (let i = 0; i < shared.drafts.length; i++) {
      const a = shared.drafts[i]!
      const b = own.drafts[i]!
      expect(a.sourceIndex).toBe(b.sourceIndex)
      expect(JSON.stringify(a.draft)).toBe(JSON.stringify(b.draft))
    }
  })

  test('and the same normalised photos (ids, fields, raw JSON)', () => {
    const a = normalizeSources(shared).records
    const b = normalizeSources(own).records
    expect(a.length).toBe(b.length)
    expect(a.map((r) => JSON.stringify(r))).toEqual(b.map((r) => JSON.stringify(r)))
  }, 60_000)

  test('the bundled records repeat their texts: far fewer distinct than records', () => {
    const strings = new SharedStrings()
    let texts = 0
    for (const { draft: { record: r } } of own.drafts) {
      texts += 1 + [r.sample_type, r.title, r.caption, r.credit].filter((t) => t !== undefined).length
      strings.shareRecord(r)
    }
    expect(strings.size).toBeLessThan(texts / 4)
  })

  test('share gives back an equal string and counts each distinct text once', () => {
    const strings = new SharedStrings()
    const first = ['Mars ', 'Perseverance Sol 12'].join('')
    expect(strings.share(first)).toBe('Mars Perseverance Sol 12')
    expect(strings.share(`Mars Perseverance Sol ${6 * 2}`)).toBe(first)
    expect(strings.share('NASA/JPL-Caltech')).toBe('NASA/JPL-Caltech')
    expect(strings.size).toBe(2)
  })
})
