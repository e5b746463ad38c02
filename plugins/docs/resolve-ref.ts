/** `obj` with its local `$ref` (`#/components/...`) followed inside `doc`, up to ten hops. */
export function resolveRef<T>(doc: unknown, obj: T | undefined): T | undefined {
  let o: unknown = obj
  for (let i = 0; i < 10 && o && typeof o === 'object' && typeof (o as { $ref?: unknown }).$ref === 'string'; i++) {
    o = (o as { $ref: string }).$ref
      .replace(/^#\//, '')
      .split('/')
      .reduce<unknown>((acc, k) => (acc && typeof acc === 'object' ? (acc as Record<string, unknown>)[k] : undefined), doc)
  }
  return o as T | undefined
}
