/**
 * Schemas named with `$id` (a photo, written the same way in the list, the single photo, the
 * batch and every part of /related) are stated once under `components.schemas` and referenced
 * where they occur, so the document, and the clients generated from it, hold one Photo instead
 * of a copy per place.
 */
export class SharedSchemas {
  readonly byName: Record<string, unknown> = {}
  private seen = new Map<string, string>()

  /** `schema` (plain JSON, cleanSchema's output) with each named subschema replaced by its `$ref`. */
  refer(schema: Record<string, unknown>): Record<string, unknown> {
    return this.walk(schema) as Record<string, unknown>
  }

  private walk(s: unknown): unknown {
    if (Array.isArray(s)) return s.map((x) => this.walk(x))
    if (!s || typeof s !== 'object') return s
    const { $id, ...rest } = s as Record<string, unknown>
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(rest)) out[k] = this.walk(v)
    if (typeof $id !== 'string') return out
    // Two different schemas under one name would make every reference to it a lie.
    const text = JSON.stringify(out)
    const before = this.seen.get($id)
    if (before !== undefined && before !== text) throw new Error(`two different schemas are named ${$id}`)
    this.seen.set($id, text)
    this.byName[$id] = out
    return { $ref: `#/components/schemas/${$id}` }
  }
}
