/**
 * The app's routes as a lookup table: which route (if any) answers a method and path, and which
 * methods a path has. The catch-all route and the method check use it to tell 405 from 404
 * (RFC 9110 §15.5.6, with `Allow`), and the errors plugin to find a route's declared schemas when
 * it explains a validation error. Which route runs, and whether it needs a key, is Elysia's
 * router's decision (`route` in the hooks), never this table's. Built lazily from Elysia's `app.routes` (Elysia paths: `:param`,
 * `:param?`, `*`), rebuilt when routes are added.
 */
export interface RouteEntry {
  method: string
  path: string
}

export interface RouteMatch {
  method: string
  /** The route's pattern as registered, e.g. `/api/v2/photos/:id`. */
  pattern: string
  params: Record<string, string>
}

interface Compiled {
  method: string
  pattern: string
  regex: RegExp
  names: string[]
}

export class RouteTable {
  #source: () => readonly RouteEntry[]
  #seen = -1
  #static = new Map<string, Map<string, string>>() // path -> method -> pattern
  #dynamic: Compiled[] = []

  constructor(source: () => readonly RouteEntry[] = () => []) {
    this.#source = source
  }

  bind(source: () => readonly RouteEntry[]): void {
    this.#source = source
    this.#seen = -1
  }

  /** Changes whenever the routes do: callers that memoise lookups compare it (plugins/etag). */
  generation(): number {
    this.#refresh()
    return this.#seen
  }

  /** The route answering `method` at `path` (trailing slash ignored), if any. */
  match(method: string, path: string): RouteMatch | undefined {
    this.#refresh()
    const p = trimSlash(path)
    const s = this.#static.get(p)?.get(method)
    if (s !== undefined) return { method, pattern: s, params: {} }
    for (const c of this.#dynamic) {
      if (c.method !== method) continue
      const m = c.regex.exec(p)
      if (m) return { method, pattern: c.pattern, params: paramsOf(c, m) }
    }
    return undefined
  }

  /** Every method some route answers at `path`, sorted. */
  methodsAt(path: string): string[] {
    this.#refresh()
    const p = trimSlash(path)
    const out = new Set<string>(this.#static.get(p)?.keys() ?? [])
    for (const c of this.#dynamic) if (c.regex.test(p)) out.add(c.method)
    return [...out].filter((m) => m !== 'ALL').sort()
  }

  /** Methods of the routes whose pattern is exactly `path` (no parameters). */
  staticMethodsAt(path: string): string[] {
    this.#refresh()
    return [...(this.#static.get(trimSlash(path))?.keys() ?? [])].filter((m) => m !== 'ALL').sort()
  }

  #refresh(): void {
    const routes = this.#source()
    if (routes.length === this.#seen) return
    this.#seen = routes.length
    this.#static.clear()
    this.#dynamic = []
    for (const r of routes) {
      const method = r.method.toUpperCase()
      const path = trimSlash(r.path)
      if (!path.includes(':') && !path.includes('*')) {
        let byMethod = this.#static.get(path)
        if (!byMethod) this.#static.set(path, (byMethod = new Map()))
        byMethod.set(method, r.path)
      } else {
        this.#dynamic.push({ method, pattern: r.path, ...compile(path) })
      }
    }
  }
}

function trimSlash(p: string): string {
  return p.length > 1 && p.endsWith('/') ? p.slice(0, -1) : p
}

function compile(path: string): { regex: RegExp; names: string[] } {
  const names: string[] = []
  let src = ''
  for (const seg of path.split('/').slice(1)) {
    if (seg === '*') {
      src += '(?:/(.*))?'
      names.push('*')
    } else if (seg.startsWith(':')) {
      const optional = seg.endsWith('?')
      names.push(seg.slice(1, optional ? -1 : undefined))
      src += optional ? '(?:/([^/]+))?' : '/([^/]+)'
    } else {
      src += '/' + seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    }
  }
  return { regex: new RegExp('^' + (src || '/') + '$'), names }
}

function paramsOf(c: Compiled, m: RegExpExecArray): Record<string, string> {
  const out: Record<string, string> = {}
  c.names.forEach((n, i) => {
    const v = m[i + 1]
    if (v !== undefined) out[n] = safeDecode(v)
  })
  return out
}

function safeDecode(v: string): string {
  try {
    return decodeURIComponent(v)
  } catch {
    return v
  }
}
