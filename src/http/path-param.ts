/**
 * A path parameter as text. Elysia hands over null when the segment is not valid percent-encoding
 * (e.g. `/rovers/%`); such an id names nothing, so it becomes "" and the resource answers 404.
 */
export function pathParam(value: unknown): string {
  return typeof value === 'string' ? value : ''
}
