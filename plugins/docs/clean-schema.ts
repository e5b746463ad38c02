/**
 * A TypeBox schema as plain JSON Schema 2020-12 for OpenAPI 3.1: symbols dropped, and Elysia's
 * query coercion unions (`anyOf: [{type: string, format: numeric|integer|boolean}, {type: number}]`)
 * folded into the type the client actually sends.
 */
export function cleanSchema(schema: unknown): Record<string, unknown> {
  return fold(JSON.parse(JSON.stringify(schema ?? {}))) as Record<string, unknown>
}

const COERCED = new Set(['numeric', 'integer', 'boolean'])

function fold(s: unknown): unknown {
  if (Array.isArray(s)) return s.map(fold)
  if (!s || typeof s !== 'object') return s
  const o = s as Record<string, unknown>
  if (Array.isArray(o.anyOf)) {
    const branches = o.anyOf as Array<Record<string, unknown>>
    const real = branches.filter((b) => !(b.type === 'string' && COERCED.has(String(b.format))))
    if (real.length === 1 && real.length < branches.length) {
      const { anyOf: _drop, ...outer } = o
      return fold({ ...real[0], ...outer })
    }
  }
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(o)) out[k] = fold(v)
  return out
}
