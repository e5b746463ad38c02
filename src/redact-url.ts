/** A connection URL (PostgreSQL, SMTP) without its password, fit for a log line. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url)
    if (u.password) u.password = '***'
    return u.toString()
  } catch {
    return '(unparsable URL)'
  }
}
