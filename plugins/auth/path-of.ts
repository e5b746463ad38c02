/** The path of an absolute request URL without building a URL object (hot path). */
export function pathOf(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2)
  if (start < 0) return '/'
  let end = url.indexOf('?', start)
  if (end < 0) end = url.length
  const hash = url.indexOf('#', start)
  if (hash >= 0 && hash < end) end = hash
  return url.slice(start, end)
}
