import zlib from 'node:zlib'
import fc from 'fast-check'
import { CAMERA_NAMES } from '../../src/catalog/cameras'
import { ROVER_SLUGS } from '../../src/catalog/rovers'
import { validAuthority } from '../../src/http/host-check'

/**
 * Shared fast-check arbitraries for the hostile-input fuzzer (test/fuzz.test.ts, scripts/fuzz.ts)
 * and the property every answer must hold (checkAnswer).
 *
 * The route list and each route's query parameters are read at run time from the served OpenAPI
 * document (/api/v2/openapi.json), so a parameter added later is fuzzed without touching this file.
 * Values mix what the API accepts (real ids, cursors and field names found by asking the service
 * itself) with edge and hostile values: huge and negative numbers, NaN, Infinity, unicode, control
 * characters, malformed percent-encoding, 10 KB strings, repeated parameters, path traversal,
 * mutated cursors, bad JSON bodies, wrong content types, odd methods and oversized headers.
 */

/** One query parameter of a route, with its JSON schema from the OpenAPI document. */
export interface ParamSpec {
  name: string
  schema: Record<string, unknown>
}

export interface RouteSpec {
  method: string
  /** Elysia-style path, `:name` for path parameters. */
  path: string
  query: ParamSpec[]
}

/** What the fuzzer learned from the running service before it starts. */
export interface FuzzContext {
  routes: RouteSpec[]
  photoIds: number[]
  nasaIds: string[]
  locationIds: string[]
  panoramaIds: string[]
  cursors: string[]
  fieldNames: string[]
  /** valid: generous limits; limited: tiny limits (429s); revoked: a key that was revoked. */
  keys: { valid: string; limited?: string; revoked?: string }
  /** The MCP endpoint's tools and their argument schemas (tools/list), so a tool added later is fuzzed too. */
  tools: McpToolSpec[]
}

/** One MCP tool as tools/list describes it. */
export interface McpToolSpec {
  name: string
  args: Record<string, Record<string, unknown>>
}

/** A request as the fuzzer sends it. `target` is path + query exactly as sent (may hold malformed percent-encoding). */
export interface FuzzRequest {
  method: string
  target: string
  headers: Array<[string, string]>
  body?: string
}

// ---------------------------------------------------------------------------------------------
// Hostile values

const TEN_KB = 10 * 1024
/** Numbers a parser might trip on. */
export const HOSTILE_NUMBERS = [
  '-1', '-0', '0', '1e309', '-1e309', '1e-400', '9'.repeat(400), '2147483647', '2147483648', '-2147483648', '-2147483649',
  '4294967296', '9007199254740993', '18446744073709551616', 'NaN', 'Infinity', '-Infinity', '+Infinity', '0x10', '0b11', '0o7',
  '1_000', ' 1', '1 ', '+1', '1.0', '1.5', '.5', '5.', '1e3', '1E+2', '١٢٣', '１２', '--1', '1-', '', ' ', 'null', 'undefined',
  'true', '[]', '{}', '[1]', 'constructor', '__proto__', 'toString',
]
/** Strings that break naive code: control characters, unicode edge cases, injection shapes. */
export const HOSTILE_STRINGS = [
  '\u0000', '\u0000abc', 'a\u0000b', '\r\n', '\n', '\t', '\u0007', '\u001b[31mred', '\u007f', '\u0085', '\u2028\u2029', '\ufeff',
  '\ud800', '\udfff', '\ud83d\ude80', '👩‍🚀', 'é', 'e\u0301', 'İ', 'ß', 'ﬀ', '\u202etxt.exe', '𝕏', '表', 'ＡＢＣ', '%', '%%', '%25',
  "'", '"', '`', '\\', "' OR 1=1 --", '"; DROP TABLE api_keys; --', '<script>alert(1)</script>', '${7*7}', '{{7*7}}', '$(id)',
  '../../../../etc/passwd', '..\\..\\windows\\win.ini', '/etc/passwd', 'file:///etc/passwd', 'http://127.0.0.1:22/', ',', ',,,',
  ' , ', '-', '--', '+', '*', '?', '#', '&', '=', ';', '|', '[', ']', '{', '}', 'a'.repeat(TEN_KB), 'é'.repeat(TEN_KB / 2),
  ','.repeat(TEN_KB), '-'.repeat(TEN_KB), '0'.repeat(TEN_KB), 'x,'.repeat(TEN_KB / 2),
]
/** Percent-encodings that do not decode: inserted into the URL as they are, never re-encoded. */
export const MALFORMED_PERCENT = [
  '%', '%2', '%Z', '%ZZ', '%zz', '%G0', '%%41', '%E0%A4%A', '%C0%AF', '%C0%AE%C0%AE%C0%AF', '%FF', '%FE%FF', '%ED%A0%80', '%00',
  '%F4%90%80%80', '%80', '%C3', '%u0041', '%2e%2e%2f', '%252e%252e%252f', 'a%', '%%%', '%0d%0aX-Injected:%201',
]
/** Ids that try to leave their folder or confuse a router. */
export const TRAVERSAL_IDS = [
  '..', '.', '../..', '../../etc/passwd', '..%2f..%2fetc%2fpasswd', '%2e%2e%2f%2e%2e%2f', '%2e%2e', '..%5c..%5c', '....//....//',
  '%252e%252e%252f', '%c0%ae%c0%ae%c0%af', '..;', 'batch', 'stats', 'openapi.json', '%00', 'a%00b', '~root', '$HOME', '*', '.env',
]

const hostileString = fc.constantFrom(...HOSTILE_STRINGS)
const hostileNumber = fc.constantFrom(...HOSTILE_NUMBERS)
const anyUnicode = fc.string({ unit: 'binary', maxLength: 40 })
/** Up to 10 KB: a short random string repeated (generating 10 KB char by char would dominate the run). */
const longString = fc
  .tuple(fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 16 }), fc.integer({ min: 1000, max: TEN_KB }))
  .map(([s, n]) => s.repeat(Math.ceil(n / s.length)).slice(0, n))
/** Anything goes: the hostile part of every value generator. */
const hostile = fc.oneof(
  { weight: 4, arbitrary: hostileString },
  { weight: 4, arbitrary: hostileNumber },
  { weight: 2, arbitrary: anyUnicode },
  { weight: 1, arbitrary: longString },
  { weight: 2, arbitrary: fc.string({ maxLength: 20 }) },
)

// ---------------------------------------------------------------------------------------------
// Query values

/** A query value: `raw` values go into the URL exactly as they are (malformed percent-encoding). */
export interface QueryPart {
  name: string
  value: string
  raw?: boolean
}

const commaList = <T extends string>(items: readonly T[], transform: (s: string) => string = (s) => s) =>
  fc.subarray([...items], { minLength: 1 }).map((xs) => xs.map(transform).join(','))

function intIn(min: number, max: number) {
  return fc.oneof(
    fc.integer({ min, max: Math.min(max, min + 5000) }).map(String),
    fc.constantFrom(min, max, min - 1, max + 1, Math.floor((min + max) / 2)).map(String),
  )
}

function dateValue() {
  return fc.oneof(
    fc.date({ min: new Date('2003-06-01T00:00:00Z'), max: new Date('2026-12-31T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)),
    fc.constantFrom('2012-02-30', '2021-02-29', '0000-00-00', '9999-99-99', '2012-8-6', '2012-08-06T00:00:00Z', '12-08-06', '+02012-08-06', '2012-13-01', '1969-12-31', '2038-01-19'),
  )
}

/** Plausible values for a parameter, chosen by name first, then by its schema. */
function validValue(p: ParamSpec, ctx: FuzzContext): fc.Arbitrary<string> {
  const s = p.schema as { type?: string; minimum?: number; maximum?: number; pattern?: string; format?: string }
  const signedFields = fc.subarray(ctx.fieldNames, { minLength: 1, maxLength: Math.min(4, ctx.fieldNames.length) }).chain((xs) =>
    fc.tuple(...xs.map((x) => fc.constantFrom(x, `-${x}`))).map((ys) => ys.join(',')),
  )
  switch (p.name) {
    case 'rovers':
    case 'rover':
      return fc.oneof(commaList(ROVER_SLUGS), commaList(ROVER_SLUGS, (x) => x.toUpperCase()), fc.constantFrom('curiosity, spirit', 'Curiosity', 'mars', ''))
    case 'cameras':
      return fc.oneof(commaList(CAMERA_NAMES), commaList(CAMERA_NAMES, (x) => x.toLowerCase()), fc.constantFrom('NAVCAM,FHAZ', 'navcam', 'NOPE'))
    case 'sort':
      return ctx.fieldNames.length ? signedFields : fc.constantFrom('sol', '-sol', 'id')
    case 'fields':
    case 'field_set':
      return fc.oneof(
        ctx.fieldNames.length ? fc.subarray(ctx.fieldNames, { minLength: 1 }).map((xs) => xs.join(',')) : fc.constant('id'),
        fc.constantFrom('minimal', 'standard', 'extended', 'scientific', 'complete', 'full', 'all', 'none', 'id,sol', 'images,location'),
      )
    case 'include':
      return fc.constantFrom('rover', 'camera', 'rover,camera', 'CAMERA', 'rover,rover', 'photos')
    case 'image_sizes':
      return commaList(['small', 'medium', 'large', 'full'])
    case 'group_by':
      return fc.constantFrom('camera', 'rover', 'sol', 'ROVER', 'camera,rover', 'date')
    case 'sample_type':
      return fc.oneof(commaList(['Full', 'Subframe', 'Thumbnail', 'Downsampled', 'Mixed', 'ChemCam PRC']), fc.constantFrom('full', 'FULL'))
    case 'nasa_id':
      return ctx.nasaIds.length
        ? fc.tuple(fc.constantFrom(...ctx.nasaIds), fc.nat(20), fc.nat(20)).map(([n, a, b]) => n.slice(Math.min(a, n.length), Math.max(a, n.length - b)))
        : fc.string({ unit: 'grapheme-ascii', maxLength: 12 })
    case 'cursor':
      return ctx.cursors.length ? fc.oneof(fc.constantFrom(...ctx.cursors), mutatedCursor(ctx.cursors)) : fc.base64String({ maxLength: 80 })
    case 'aspect_ratio':
      return fc.constantFrom('4:3', '1:1', '16:9', ' 3 : 2 ', '0:1', '1:0', '0:0', '1.5:1', '1e3:1', '-1:1', '4/3')
    case 'mars_time_min':
    case 'mars_time_max':
      return fc.oneof(
        fc.tuple(fc.integer({ min: 0, max: 25 }), fc.integer({ min: 0, max: 61 }), fc.integer({ min: 0, max: 61 }), fc.boolean()).map(
          ([h, m, sec, prefix]) => `${prefix ? 'M' : ''}${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}:${String(sec).padStart(2, '0')}`,
        ),
        fc.constantFrom('M07:30:00.123', '7:30:00', 'M99:99:99', 'M00:00:00', 'M23:59:59.999999999'),
      )
  }
  if (s.format === 'date' || /date/.test(p.name)) return dateValue()
  if (s.type === 'integer') return intIn(s.minimum ?? -5, s.maximum ?? 1_000_000)
  if (s.type === 'number') {
    const min = s.minimum ?? -1000
    const max = s.maximum ?? 1000
    return fc.oneof(
      fc.double({ min, max, noNaN: true, noDefaultInfinity: true }).map((x) => String(x)),
      fc.constantFrom(min, max, min - 0.0001, max + 0.0001).map(String),
    )
  }
  if (s.type === 'boolean') return fc.constantFrom('true', 'false', '1', '0', 'yes', 'TRUE', 'False', '')
  return fc.string({ unit: 'grapheme-ascii', maxLength: 16 })
}

/** Real cursors, damaged: truncated, a character changed, re-encoded garbage, or JSON of the wrong shape. */
function mutatedCursor(cursors: string[]): fc.Arbitrary<string> {
  const b64 = (s: string) => Buffer.from(s).toString('base64url')
  return fc.oneof(
    fc.tuple(fc.constantFrom(...cursors), fc.nat()).map(([c, n]) => c.slice(0, n % (c.length + 1))),
    fc.tuple(fc.constantFrom(...cursors), fc.nat(), fc.constantFrom('A', '_', '-', '=', '!', '%', '.')).map(([c, n, ch]) => {
      const i = n % Math.max(1, c.length)
      return c.slice(0, i) + ch + c.slice(i + 1)
    }),
    fc.constantFrom(...cursors).map((c) => c + c),
    fc.constantFrom(...cursors).map((c) => Buffer.from(c, 'base64url').toString('base64')),
    fc.jsonValue({ maxDepth: 3 }).map((v) => b64(JSON.stringify(v))),
    fc.constantFrom(
      b64('[]'), b64('[1,"x",[1e400],-1]'), b64('[1,null,[null],null]'), b64('{"__proto__":{"x":1}}'), b64('['.repeat(5000)),
      b64('[1,"' + 'a'.repeat(1000) + '",[1],1]'), 'A'.repeat(2048), 'A'.repeat(2049), '====', '', '~~~', b64('\u0000\u0001'),
    ),
  )
}

const memo = new WeakMap<FuzzContext, Map<string, fc.Arbitrary<unknown>>>()
/** Arbitraries are built once per context and key (building them inside chain() per sample is slow). */
function cached<T>(ctx: FuzzContext, key: string, make: () => fc.Arbitrary<T>): fc.Arbitrary<T> {
  let m = memo.get(ctx)
  if (!m) memo.set(ctx, (m = new Map()))
  let a = m.get(key)
  if (!a) m.set(key, (a = make()))
  return a as fc.Arbitrary<T>
}

/** A value for one parameter: valid half of the time, else edge or hostile (sometimes raw). */
function paramValue(p: ParamSpec, ctx: FuzzContext): fc.Arbitrary<QueryPart> {
  return cached(ctx, `param ${p.name} ${JSON.stringify(p.schema)}`, () => paramValueOf(p, ctx))
}

function paramValueOf(p: ParamSpec, ctx: FuzzContext): fc.Arbitrary<QueryPart> {
  return fc.oneof(
    { weight: 10, arbitrary: validValue(p, ctx).map((value) => ({ name: p.name, value })) },
    { weight: 6, arbitrary: hostile.map((value) => ({ name: p.name, value })) },
    { weight: 2, arbitrary: fc.constantFrom(...MALFORMED_PERCENT).map((value) => ({ name: p.name, value, raw: true })) },
    { weight: 1, arbitrary: longValue.map((value) => ({ name: p.name, value, raw: true })) },
  )
}

/**
 * Long values shaped like what each parser reads (digits, a decimal, a date, a list), where a
 * backtracking pattern would take time growing faster than length; sent raw (URL-safe already).
 */
export const LONG_VALUES = [
  '1'.repeat(15_000) + 'x', '9'.repeat(15_000), '1'.repeat(7_000) + '.' + '1'.repeat(7_000) + 'e', '.'.repeat(15_000), '1.'.repeat(7_000),
  '2024-' + '0'.repeat(15_000), 'M' + '1'.repeat(15_000) + ':', '1'.repeat(15_000) + ':', ' '.replace(' ', '%20').repeat(5_000) + '1',
  'curiosity,'.repeat(1_500), '-'.repeat(15_000) + '1', '1e' + '1'.repeat(15_000),
]
const longValue = fc.constantFrom(...LONG_VALUES)

/** One parameter once (mostly) or repeated 2 to 4 times. */
function paramGroup(p: ParamSpec, ctx: FuzzContext): fc.Arbitrary<QueryPart[]> {
  return cached(ctx, `group ${p.name} ${JSON.stringify(p.schema)}`, () =>
    fc.oneof({ weight: 5, arbitrary: paramValue(p, ctx).map((v) => [v]) }, { weight: 1, arbitrary: fc.array(paramValue(p, ctx), { minLength: 2, maxLength: 4 }) }),
  )
}

/** Parameters no route knows, and names that are themselves hostile. */
const strangeParam: fc.Arbitrary<QueryPart> = fc.oneof(
  fc.tuple(fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 12 }), fc.string({ maxLength: 12 })).map(([name, value]) => ({ name, value })),
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString', '', ' ', 'api_key', 'x-api-key').map((name) => ({ name, value: '1' })),
  fc.constantFrom('__proto__[x]=1', 'a[b][c]=1', 'sol[]=1', '&&&', '=', '==', '=x', 'sol', 'sol=', 'sol==1', '%ZZ=1', '%=%', 'a=%', '&sol=1&').map(
    (name) => ({ name, value: '', raw: true }),
  ),
)

/** The query string: a subset of the route's parameters (some repeated), plus strangers. */
function queryString(route: RouteSpec, ctx: FuzzContext): fc.Arbitrary<string> {
  return cached(ctx, `query ${route.method} ${route.path}`, () => queryStringOf(route, ctx))
}

function queryStringOf(route: RouteSpec, ctx: FuzzContext): fc.Arbitrary<string> {
  const own = route.query.length
    ? fc.array(fc.constantFrom(...route.query), { maxLength: Math.min(8, route.query.length) }).chain((ps) =>
        ps.length ? fc.tuple(...ps.map((p) => paramGroup(p, ctx))) : fc.constant([] as QueryPart[][]),
      )
    : fc.constant([] as QueryPart[][])
  return fc.tuple(own, fc.array(strangeParam, { maxLength: 2 }), fc.nat(9), fc.nat(7), fc.nat()).map(([groups, extra, style, casing, order]) => {
    // Names in other cases (a parser reads exact names; a cache key must not fold them), and the
    // parts in another order (repeated parameters included): what a cache key must keep apart.
    const recase = (q: QueryPart): QueryPart => (casing === 0 ? { ...q, name: q.name.toUpperCase() } : casing === 1 ? { ...q, name: q.name.charAt(0).toUpperCase() + q.name.slice(1) } : q)
    const parts = permute([...groups.flat().map(recase), ...extra], casing >= 5 ? order : 0)
    if (parts.length === 0) return style === 0 ? '?' : ''
    const enc = (s: string) => encodeURIComponent(s.toWellFormed())
    const text = parts.map((q) => (q.raw ? (q.value === '' ? q.name : `${enc(q.name)}=${q.value}`) : `${enc(q.name)}=${style === 1 ? enc(q.value).replace(/%20/g, '+') : enc(q.value)}`))
    return '?' + text.join(style === 2 ? '&&' : '&') + (style === 3 ? '#frag' : '')
  })
}

/** `items` in the order number `n` picks (0: as they are). */
function permute<T>(items: T[], n: number): T[] {
  if (n === 0 || items.length < 2) return items
  const out = items.slice()
  for (let i = out.length - 1; i > 0; i--) {
    const j = n % (i + 1)
    n = Math.floor(n / (i + 1)) + 7 * i
    ;[out[i], out[j]] = [out[j]!, out[i]!]
  }
  return out
}

// ---------------------------------------------------------------------------------------------
// Paths

/** A value for one path parameter of `path`. */
function pathParamValue(path: string, name: string, ctx: FuzzContext): fc.Arbitrary<string> {
  const enc = (s: string) => encodeURIComponent(s.toWellFormed())
  const hostileSeg = fc.oneof(
    fc.constantFrom(...TRAVERSAL_IDS),
    fc.constantFrom(...MALFORMED_PERCENT),
    hostile.map(enc),
  )
  let valid: fc.Arbitrary<string>
  if (path.includes('/photos/')) {
    valid = fc.oneof(
      ctx.photoIds.length ? fc.constantFrom(...ctx.photoIds).map(String) : fc.constant('1'),
      fc.integer({ min: -5, max: 3_000_000 }).map(String),
      fc.constantFrom('0', '-0', '01', '1.0', '2147483647', '2147483648', '-2147483649', '1e3', '0x1F', '%201', '1%20', '%31', '+1'),
    )
  } else if (path.includes('/locations/')) {
    valid = ctx.locationIds.length ? fc.constantFrom(...ctx.locationIds) : fc.constant('curiosity_1_0')
  } else if (path.includes('/panoramas/')) {
    valid = ctx.panoramaIds.length ? fc.oneof(fc.constantFrom(...ctx.panoramaIds), fc.constant('pano_curiosity_1_1')) : fc.constantFrom('pano_curiosity_1_1', 'pano_spirit_0_0', 'pano__1')
  } else if (path.includes('/rovers/')) {
    valid = fc.constantFrom(...ROVER_SLUGS, 'CURIOSITY', 'Spirit', 'sojourner', 'mars')
  } else if (path.includes('/cameras/')) {
    valid = fc.oneof(fc.constantFrom(...CAMERA_NAMES), fc.constantFrom(...CAMERA_NAMES).map((c) => c.toLowerCase()), fc.constantFrom('NOPE', 'navcam_left'))
  } else {
    valid = fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 20 }).map(enc)
  }
  return fc.oneof({ weight: 3, arbitrary: valid }, { weight: 2, arbitrary: hostileSeg })
}

/** Paths no route serves, or that a router may mistake for one. */
const strangePaths = [
  '/', '/api', '/api/', '/api/v1/photos', '/api/v3/photos', '/api/v2/', '/api/v2/photoz', '/API/V2/PHOTOS', '/api/v2/Photos', '/api//v2/photos',
  '//api/v2/photos', '/api/v2/photos/', '/api/v2/photos//', '/api/v2/photos/1/2', '/api/v2/photos/batch/1', '/api/v2/photos/stats/x',
  '/api/v2/%70hotos', '/api/v2/photos;a=b', '/api/v2/photos%2fstats', '/api/v2/photos%00', '/api/v2/./photos', '/api/v2/x/../photos',
  '/health/', '/HEALTH', '/health/x', '/favicon.ico', '/robots.txt', '/api/v2/openapi.json/x', '/api/v2/docs/', '/.env', '/api/v2/%ZZ',
  '/api/v2/photos/%', '/api/v2/rovers/', '/api/v2/cameras/', '/api/v2/locations/', '/api/v2/panoramas/', '/' + 'a'.repeat(TEN_KB),
  '/api/v2/photos/' + '1'.repeat(TEN_KB), '/api/v2/' + 'photos/'.repeat(200),
]

/** A path for `route` with its parameters filled in. */
function routePath(route: RouteSpec, ctx: FuzzContext): fc.Arbitrary<string> {
  return cached(ctx, `path ${route.method} ${route.path}`, () => routePathOf(route, ctx))
}

function routePathOf(route: RouteSpec, ctx: FuzzContext): fc.Arbitrary<string> {
  const names = [...route.path.matchAll(/:([A-Za-z_]+)/g)].map((m) => m[1]!)
  if (names.length === 0) return fc.constantFrom(route.path, route.path, route.path, route.path + '/')
  return fc.tuple(...names.map((n) => pathParamValue(route.path, n, ctx))).map((values) => {
    let out = route.path
    names.forEach((n, i) => (out = out.replace(`:${n}`, values[i]!)))
    return out
  })
}

// ---------------------------------------------------------------------------------------------
// Headers and bodies

const latin1 = fc.string({ unit: fc.integer({ min: 0x20, max: 0xff }).filter((c) => c !== 0x7f).map((c) => String.fromCharCode(c)), maxLength: 40 })
const contentTypes = fc.constantFrom(
  'application/json', 'application/json; charset=utf-8', 'APPLICATION/JSON', 'application/vnd.api+json', 'application/json; charset=utf-16', 'text/plain',
  'application/x-www-form-urlencoded', 'multipart/form-data; boundary=zz', 'application/jsonx', 'json', ';', '',
)
// Built once: generating thousand-item lists per request would dominate the run.
const TAG_LISTS = [1, 2, 10, 100, 300, 1200].map((n) => Array.from({ length: n }, (_, i) => `W/"${i.toString(36)}-${'x'.repeat(i % 7)}"`).join(', '))
const ACCEPT_LISTS = [2, 10, 100, 300, 600].map((n) => Array.from({ length: n }, (_, i) => `application/x-${i};q=0.${i % 10}`).join(', '))
const manyTags = fc.constantFrom(...TAG_LISTS)
const hugeAccept = fc.constantFrom(...ACCEPT_LISTS)

function apiKeyHeader(ctx: FuzzContext): fc.Arbitrary<string | undefined> {
  const k = ctx.keys
  return fc.oneof(
    { weight: 16, arbitrary: fc.constant(k.valid) },
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.constantFrom(...[k.limited, k.revoked].filter((x): x is string => !!x), k.valid) },
    {
      weight: 2,
      arbitrary: fc.oneof(
        fc.constantFrom('', ' ', 'mv_live_', `${k.valid} `, ` ${k.valid}`, k.valid.toUpperCase(), k.valid.slice(0, -1), k.valid + '0', `${k.valid},${k.valid}`, 'x'.repeat(TEN_KB)),
        fc.stringMatching(/^mv_live_[0-9a-f]{40}$/),
        latin1,
      ),
    },
  )
}

/** Headers a fetch client can send (no CR, LF or NUL; ISO-8859-1 only). */
function headers(ctx: FuzzContext, method: string): fc.Arbitrary<Array<[string, string]>> {
  return cached(ctx, `headers ${method === 'POST' ? 'POST' : 'other'}`, () => headersOf(ctx, method))
}

function headersOf(ctx: FuzzContext, method: string): fc.Arbitrary<Array<[string, string]>> {
  const opt = <T>(a: fc.Arbitrary<T>, freq = 3) => fc.option(a, { freq, nil: undefined })
  return fc
    .record({
      key: apiKeyHeader(ctx),
      accept: opt(fc.oneof(fc.constantFrom('application/json', 'text/json', 'text/plain', '*/*', 'application/xml', 'text/html', 'application/problem+json', ',,,', 'text/plain;q=abc', 'application/json;q=0', '*/*;q=-1', ''), hugeAccept, latin1)),
      inm: opt(fc.oneof(fc.constantFrom('*', 'W/"x"', '"', 'W/', '""', 'W/""', '*, W/"a"', ',', 'W/"unterminated', '"a""b"'), manyTags, latin1), 4),
      contentType: method === 'POST' ? fc.oneof({ weight: 6, arbitrary: fc.constant('application/json') }, { weight: 1, arbitrary: fc.constant(undefined) }, { weight: 3, arbitrary: contentTypes }) : opt(contentTypes, 8),
      extra: fc.array(
        fc.oneof(
          fc.tuple(fc.constantFrom('x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host', 'forwarded', 'origin', 'referer', 'user-agent', 'range', 'if-modified-since', 'if-match', 'expect', 'cookie', 'authorization', 'x-http-method-override', 'accept-encoding', 'accept-language'), latin1),
          fc.tuple(fc.stringMatching(/^[a-z][a-z0-9-]{0,30}$/), latin1),
          fc.tuple(fc.constant('x-big'), fc.nat({ max: TEN_KB }).map((n) => 'v'.repeat(n))),
        ),
        { maxLength: 3 },
      ),
    })
    .map(({ key, accept, inm, contentType, extra }) => {
      const h: Array<[string, string]> = []
      if (key !== undefined) h.push(['x-api-key', key])
      if (accept !== undefined) h.push(['accept', accept])
      if (inm !== undefined) h.push(['if-none-match', inm])
      if (contentType !== undefined) h.push(['content-type', contentType])
      for (const [name, value] of extra) if (!name.startsWith('content-length') && name !== 'host' && name !== 'transfer-encoding') h.push([name, value])
      return h
    })
}

/** Over the default 64 KB body limit. */
const OVERSIZED_BODY = JSON.stringify({ ids: [1], pad: 'x'.repeat(70 * 1024) })

/** Batch bodies: valid ones and every way JSON can go wrong. */
function body(ctx: FuzzContext): fc.Arbitrary<string> {
  return cached(ctx, 'body', () => bodyOf(ctx))
}

function bodyOf(ctx: FuzzContext): fc.Arbitrary<string> {
  const id = fc.oneof(ctx.photoIds.length ? fc.constantFrom(...ctx.photoIds) : fc.constant(1), fc.integer({ min: -10, max: 3_000_000 }))
  const weirdId = fc.oneof(
    fc.constantFrom('1e400', '-1e400', '1.5', '-1', '2147483648', '9007199254740993', 'null', 'true', '"1"', '[]', '{}', '"1; DROP"', '0.0', '-0', '1E2'),
    fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v)),
  )
  return fc.oneof(
    { weight: 6, arbitrary: fc.array(id, { minLength: 1, maxLength: 100 }).map((ids) => JSON.stringify({ ids })) },
    { weight: 3, arbitrary: fc.array(fc.oneof(id.map(String), weirdId), { minLength: 0, maxLength: 120 }).map((xs) => `{"ids":[${xs.join(',')}]}`) },
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        '', ' ', '{', '}', '[', 'null', 'true', '0', '"ids"', '[]', '{}', '{"ids":null}', '{"ids":"1,2"}', '{"ids":{}}', '{"ids":[]}',
        '{"ids":[1],"ids":[2]}', '{"IDS":[1]}', '\ufeff{"ids":[1]}', '{"ids":[1]}garbage', '{"ids":[1]}\u0000', "{'ids':[1]}", '{"ids":[1,]}',
        '{"ids":[01]}', '{"ids":[NaN]}', '{"ids":[Infinity]}', '{"__proto__":{"ids":[1]}}', '{"ids":[1],"__proto__":null}',
        '{"constructor":{"prototype":{"x":1}},"ids":[1]}', '['.repeat(TEN_KB), '{"a":'.repeat(5000), JSON.stringify({ ids: Array.from({ length: 101 }, (_, i) => i + 1) }),
        JSON.stringify({ ids: Array.from({ length: 8000 }, (_, i) => i + 1) }), JSON.stringify({ ids: [1], pad: 'x'.repeat(70 * 1024) }), 'ids=1&ids=2', '--zz\r\n\r\n--zz--',
      ),
    },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: hostile },
    { weight: 1, arbitrary: fc.constant(OVERSIZED_BODY) },
  )
}

// ---------------------------------------------------------------------------------------------
// Requests

const METHODS = fc.oneof(
  { weight: 30, arbitrary: fc.constant('GET') },
  { weight: 8, arbitrary: fc.constant('POST') },
  { weight: 3, arbitrary: fc.constant('HEAD') },
  { weight: 4, arbitrary: fc.constantFrom('PUT', 'DELETE', 'PATCH', 'OPTIONS', 'PROPFIND', 'FOO', 'get', 'Post', 'M-SEARCH', 'X'.repeat(64)) },
)

/**
 * One request a fetch client can send (in-process through app.handle, or over HTTP with fetch):
 * mostly a real route with fuzzed parameters, headers and body; sometimes a strange path.
 */
export function fuzzRequest(ctx: FuzzContext): fc.Arbitrary<FuzzRequest> {
  const path = fc.oneof(
    { weight: 12, arbitrary: fc.constantFrom(...ctx.routes).chain((r) => fc.tuple(routePath(r, ctx), queryString(r, ctx)).map(([p, q]) => p + q)) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...strangePaths), fc.constantFrom(...ctx.routes).chain((r) => queryString(r, ctx))).map(([p, q]) => p + q) },
  )
  return fc.tuple(METHODS, fc.nat(9)).chain(([m, pick]) => {
    const upper = m.toUpperCase()
    // A POST usually goes to the batch route; other methods anywhere.
    const batch = ctx.routes.find((r) => r.method === 'POST')
    const toBatch = upper === 'POST' && !!batch && pick < 8
    const withBody = upper !== 'GET' && upper !== 'HEAD' && (upper === 'POST' || pick < 3)
    return cached(ctx, `request ${m} ${toBatch} ${withBody}`, () =>
      fc.record({
        method: fc.constant(m),
        target: toBatch ? queryString(batch!, ctx).map((q) => batch!.path + q) : path,
        headers: headers(ctx, upper),
        body: withBody ? body(ctx) : fc.constant(undefined),
      }),
    )
  })
}

/** A WHATWG Request for `r` against `origin` (e.g. http://localhost). */
export function toRequest(r: FuzzRequest, origin: string): Request {
  const h = new Headers()
  for (const [k, v] of r.headers) h.append(k, v)
  return new Request(origin + r.target, { method: r.method, headers: h, body: r.body })
}

// ---------------------------------------------------------------------------------------------
// The MCP endpoint: malformed JSON-RPC

export const MCP_PATH = '/mcp'
/** What the Streamable HTTP transport asks of a POST: a JSON body, and an Accept of both answer forms. */
export const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
/** Over the default 64 KB body limit once written out. */
const MCP_OVERSIZED = 70 * 1024

const MCP_METHODS = [
  'initialize', 'ping', 'tools/list', 'tools/call', 'resources/list', 'resources/read', 'resources/templates/list', 'resources/subscribe', 'prompts/list',
  'prompts/get', 'completion/complete', 'logging/setLevel', 'sampling/createMessage', 'notifications/initialized', 'notifications/cancelled',
  'notifications/progress', 'no/such/method', '', 'TOOLS/LIST', 'tools/call/', '__proto__', 'constructor', 'x'.repeat(300),
]

/** JSON-RPC ids: integers and strings as the protocol allows, and every shape it does not. */
const rpcId: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: fc.integer() },
  { weight: 3, arbitrary: fc.string({ maxLength: 20 }) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(null, 1.5, -0, 2 ** 53 + 2, -(2 ** 63), true, false, [], [1], {}, { id: 1 }, '', 'x'.repeat(5000), '__proto__') },
)

/** A JSON value a model (or an attacker) might put anywhere: scalars, hostile texts, small structures. */
const jsonJunk: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 2, arbitrary: hostileString },
  { weight: 2, arbitrary: hostileNumber.map((n) => (Number.isFinite(Number(n)) && n.trim() !== '' ? Number(n) : n)) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(JSON.parse('{"__proto__":{"polluted":1}}'), { constructor: { prototype: { x: 1 } } }, { constructor: null }, [[[[[]]]]], { a: { b: { c: { d: {} } } } }) },
  { weight: 1, arbitrary: fc.nat({ max: 60_000 }).map((n) => 'x'.repeat(n)) },
)

/** A value for one tool argument from its schema: valid most of the time (as the HTTP parameter of that name), else junk. */
function mcpArgValue(name: string, schema: Record<string, unknown>, ctx: FuzzContext): fc.Arbitrary<unknown> {
  return cached(ctx, `mcp arg ${name} ${JSON.stringify(schema)}`, () => {
    const route = ctx.routes.flatMap((r) => r.query).find((q) => q.name === name)
    const s = schema as { type?: string; minimum?: number; maximum?: number; anyOf?: unknown[] }
    let valid: fc.Arbitrary<unknown>
    if (name === 'ids') valid = fc.array(ctx.photoIds.length ? fc.constantFrom(...ctx.photoIds) : fc.nat(), { minLength: 0, maxLength: 110 })
    else if (name === 'slug') valid = fc.constantFrom(...ROVER_SLUGS, 'Spirit', 'sojourner', '')
    else if (name === 'id') valid = fc.oneof(ctx.photoIds.length ? fc.constantFrom(...ctx.photoIds) : fc.nat(), fc.constantFrom<unknown>('1', -1, 2 ** 31))
    else if (s.type === 'integer') valid = fc.integer({ min: Math.max(s.minimum ?? -10, -10), max: Math.min(s.maximum ?? 5000, 5000) })
    else if (s.type === 'number') valid = fc.double({ noNaN: true, min: -1000, max: 1000 })
    else if (s.type === 'boolean') valid = fc.boolean()
    else if (route) valid = validValue(route, ctx).chain((v) => (s.anyOf ? fc.constantFrom<unknown>(v, v.split(',')) : fc.constant<unknown>(v)))
    else valid = fc.string({ maxLength: 20 })
    return fc.oneof({ weight: 4, arbitrary: valid }, { weight: 1, arbitrary: jsonJunk })
  })
}

/** The arguments of a tools/call: some of the tool's own (valid or not), sometimes names it does not take. */
function mcpArguments(tool: McpToolSpec | undefined, ctx: FuzzContext): fc.Arbitrary<unknown> {
  return cached(ctx, `mcp arguments ${tool?.name}`, () => mcpArgumentsOf(tool, ctx))
}

function mcpArgumentsOf(tool: McpToolSpec | undefined, ctx: FuzzContext): fc.Arbitrary<unknown> {
  const names = Object.keys(tool?.args ?? {})
  const known = names.length
    ? fc.subarray(names, { maxLength: Math.min(5, names.length) }).chain((picked) => fc.tuple(...picked.map((n) => mcpArgValue(n, tool!.args[n]!, ctx))).map((vs) => Object.fromEntries(picked.map((n, i) => [n, vs[i]]))))
    : fc.constant({})
  const unknown = fc.dictionary(fc.oneof(fc.constantFrom('sols', 'rover', 'camera', '__proto__', 'constructor', 'x'.repeat(200), ''), fc.string({ maxLength: 10 })), jsonJunk, { maxKeys: 3 })
  return fc.oneof(
    { weight: 8, arbitrary: known },
    { weight: 2, arbitrary: fc.tuple(known, unknown).map(([a, b]) => ({ ...(a as object), ...b })) },
    { weight: 1, arbitrary: fc.constantFrom<unknown>(null, 'x', 1, [], [1, 2], true) },
    // Many names: the unknown-name check names a few and counts the rest.
    { weight: 1, arbitrary: fc.nat({ max: 3000 }).map((n) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`a${i}`, i]))) },
  )
}

/** One JSON-RPC message (as a value): requests, notifications and responses, well-formed or not. */
function mcpMessage(ctx: FuzzContext): fc.Arbitrary<unknown> {
  return cached(ctx, 'mcp message', () => {
    const toolNames = ctx.tools.map((t) => t.name)
    const tool = fc.oneof(
      { weight: 8, arbitrary: toolNames.length ? fc.constantFrom(...ctx.tools) : fc.constant(undefined) },
      { weight: 1, arbitrary: fc.constant(undefined) },
    )
    const jsonrpc = fc.oneof({ weight: 12, arbitrary: fc.constant<unknown>('2.0') }, { weight: 1, arbitrary: fc.constantFrom<unknown>('1.0', '2', 2, null, '', '2.0 ') })
    const call = fc.tuple(jsonrpc, rpcId, tool, fc.nat(9)).chain(([v, id, t, pick]) =>
      mcpArguments(t, ctx).map((args) => ({
        jsonrpc: v,
        id,
        method: 'tools/call',
        params: pick === 0 ? { name: t?.name } : { name: t?.name ?? (pick === 1 ? 42 : 'no_such_tool'), arguments: args, ...(pick === 2 ? { _meta: { progressToken: 'x'.repeat(100) } } : {}) },
      })),
    )
    const other = fc.record({ jsonrpc, id: rpcId, method: fc.constantFrom(...MCP_METHODS), params: fc.option(jsonJunk, { nil: undefined }) })
    const read = fc.record({
      jsonrpc,
      id: rpcId,
      method: fc.constant('resources/read'),
      params: fc.record({ uri: fc.oneof(fc.constantFrom('mars-api://openapi.json', 'mars-api://guide.md', 'file:///etc/passwd', 'mars-api://../../etc/passwd', '', 'mars-api://' + 'x'.repeat(3000)), jsonJunk) }),
    })
    const initialize = fc.record({
      jsonrpc,
      id: rpcId,
      method: fc.constant('initialize'),
      params: fc.record({ protocolVersion: fc.constantFrom<unknown>('2025-06-18', '2025-03-26', '2024-11-05', '1999-01-01', '', 7), capabilities: jsonJunk, clientInfo: fc.oneof(fc.constant({ name: 'fuzz', version: '1' }), jsonJunk) }),
    })
    const notification = fc.record({ jsonrpc, method: fc.constantFrom('notifications/initialized', 'notifications/cancelled', 'notifications/progress', 'no/such'), params: fc.option(jsonJunk, { nil: undefined }) })
    // What a client sends back to a server's request: a response to nothing.
    const response = fc.record({ jsonrpc, id: rpcId, result: jsonJunk })
    const errorReply = fc.record({ jsonrpc, id: rpcId, error: fc.record({ code: fc.integer(), message: fc.string({ maxLength: 20 }) }) })
    return fc.oneof(
      { weight: 8, arbitrary: call },
      { weight: 4, arbitrary: other },
      { weight: 2, arbitrary: read },
      { weight: 1, arbitrary: initialize },
      { weight: 1, arbitrary: notification },
      { weight: 1, arbitrary: response },
      { weight: 1, arbitrary: errorReply },
    )
  })
}

/** A /mcp body: one message, a batch (up to huge), cut or broken JSON, an oversized argument, deep nesting, or no JSON at all. */
function mcpBody(ctx: FuzzContext): fc.Arbitrary<string> {
  return cached(ctx, 'mcp body', () => {
    const message = mcpMessage(ctx)
    const one = message.map((m) => JSON.stringify(m))
    const listMessage = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' })
    return fc.oneof(
      { weight: 10, arbitrary: one },
      { weight: 3, arbitrary: fc.array(message, { minLength: 0, maxLength: 30 }).map((ms) => JSON.stringify(ms)) },
      // Huge batches: just under the body limit (about 1,200 messages) and over it.
      { weight: 1, arbitrary: fc.constantFrom(200, 1200, 1500).map((n) => `[${Array.from({ length: n }, (_, i) => listMessage.replace('"id":1', `"id":${i}`)).join(',')}]`) },
      { weight: 2, arbitrary: fc.tuple(one, fc.nat(200)).map(([t, n]) => t.slice(0, Math.min(n, t.length - 1))) },
      {
        weight: 2,
        arbitrary: fc.tuple(ctx.tools.length ? fc.constantFrom(...ctx.tools) : fc.constant({ name: 'search_photos', args: {} } as McpToolSpec), fc.constantFrom(20_000, 60_000, MCP_OVERSIZED)).map(([t, n]) => {
          const name = Object.keys(t.args)[0] ?? 'nasa_id'
          return JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: t.name, arguments: { [name]: 'x'.repeat(n) } } })
        }),
      },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          '', ' ', 'null', '[]', '{}', '[[]]', '[1,2]', '"tools/list"', '{not json', '\ufeff' + listMessage, listMessage + 'garbage', listMessage + listMessage,
          '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_photos","arguments":{"sol":' + '['.repeat(20_000) + ']'.repeat(20_000) + '}}}',
          '['.repeat(TEN_KB), '{"a":'.repeat(5000), '{"jsonrpc":"2.0","id":1,"method":"tools/list","method":"tools/call"}', '{"__proto__":{"jsonrpc":"2.0"},"id":1,"method":"ping"}',
        ),
      },
      { weight: 1, arbitrary: hostile },
    )
  })
}

/**
 * What no /mcp answer may carry, beyond checkAnswer: a tool that failed on the server (its
 * generic isError 500, the engine's exception logged) or a JSON-RPC internal error (-32603): a
 * bad message or argument is the client's error, answered as such.
 */
export function mcpViolations(body: string): string[] {
  const v: string[] = []
  if (body.includes('The tool failed on the server')) v.push('a tool failed on the server')
  if (/"code":\s*-32603\b/.test(body)) v.push(`JSON-RPC internal error: ${body.slice(0, 200)}`)
  return v
}

/** Accept values the transport must refuse (406) or take. */
const mcpAccept = fc.oneof(
  { weight: 12, arbitrary: fc.constant(MCP_HEADERS.accept) },
  { weight: 3, arbitrary: fc.constantFrom('application/json', 'text/event-stream', '*/*', 'text/html', '', 'application/json;q=0, text/event-stream', 'TEXT/EVENT-STREAM, APPLICATION/JSON') },
  { weight: 1, arbitrary: hugeAccept },
)

/**
 * One request to the MCP endpoint: mostly a POST of malformed or odd JSON-RPC (wrong ids, huge
 * batches, unknown methods, oversized and wrong-typed arguments) with the valid key, sometimes
 * wrong media types, another key or none, a protocol-version or session header, another method.
 */
export function mcpRequest(ctx: FuzzContext): fc.Arbitrary<FuzzRequest> {
  return cached(ctx, 'mcp request', () =>
    fc
      .record({
        method: fc.oneof({ weight: 20, arbitrary: fc.constant('POST') }, { weight: 1, arbitrary: fc.constantFrom('GET', 'DELETE', 'PUT', 'HEAD', 'OPTIONS') }),
        key: fc.oneof({ weight: 20, arbitrary: fc.constant<string | undefined>(ctx.keys.valid) }, { weight: 1, arbitrary: fc.constantFrom<string | undefined>(undefined, ctx.keys.limited, ctx.keys.revoked, 'mv_live_nope') }),
        type: fc.oneof({ weight: 10, arbitrary: fc.constant<string | undefined>(MCP_HEADERS['content-type']) }, { weight: 2, arbitrary: contentTypes.map((t): string | undefined => t) }, { weight: 1, arbitrary: fc.constant<string | undefined>(undefined) }),
        accept: mcpAccept,
        extra: fc.option(fc.tuple(fc.constantFrom('mcp-protocol-version', 'mcp-session-id', 'last-event-id'), fc.oneof(fc.constantFrom('2025-06-18', '2024-11-05', '1999-01-01', ''), latin1)), { freq: 4, nil: undefined }),
        body: mcpBody(ctx),
        query: fc.constantFrom('', '', '', '?x=1', '?sessionId=1'),
      })
      .map(({ method, key, type, accept, extra, body, query }) => {
        const headers: Array<[string, string]> = []
        if (key !== undefined) headers.push(['x-api-key', key])
        if (type !== undefined) headers.push(['content-type', type])
        headers.push(['accept', accept])
        if (extra) headers.push(extra)
        return { method, target: MCP_PATH + query, headers, body: method === 'GET' || method === 'HEAD' ? undefined : body }
      }),
  )
}

// ---------------------------------------------------------------------------------------------
// Raw HTTP: what only shows on the wire

/**
 * Bytes a fetch client would refuse to send: control characters, spaces and raw non-ASCII in
 * the request target, odd versions and framing, folded or broken header lines, conflicting
 * Content-Length, bad chunked encoding, absolute-form targets, missing or duplicate Host.
 * `framed`: false when the request is malformed HTTP, so the HTTP parser (not the app) may refuse
 * it with a bare 400; true when it is well-formed HTTP and the app must answer.
 */
export interface WireRequest {
  bytes: Uint8Array
  framed: boolean
  label: string
  method: string
  /** The request target as sent, and whether the request carries a key the service accepts. */
  target: string
  validKey: boolean
  /** The one Host header is not a valid host (the answer may be a 400 before any key check). */
  badHost: boolean
}

/** Methods Bun's HTTP parser passes to the app; it closes the connection on any other request line. */
export const PARSED_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'CONNECT', 'TRACE'])
/** Heads (request line + headers) at least this long may be refused by the HTTP parser with 431. */
export const LARGE_HEAD_BYTES = 8 * 1024

export function wireRequest(ctx: FuzzContext): fc.Arbitrary<WireRequest> {
  const enc = new TextEncoder()
  return fc.tuple(fuzzRequest(ctx), fc.nat(24), fc.constantFrom(...MALFORMED_PERCENT, '\u0001', '\u007f', ' ', '"', '<>', '{|}', '\\', '^`', '\u00e9', '\u00ff')).map(([r, mutation, junk]) => {
    const upper = r.method.toUpperCase()
    let method = /^[A-Za-z-]+$/.test(r.method) ? r.method : 'GET'
    let target = r.target.replace(/#.*$/, '')
    let version = 'HTTP/1.1'
    let lines = r.headers.map(([k, v]) => `${k}: ${v}`)
    const bodyText = r.body ?? (upper === 'POST' ? '{"ids":[1]}' : '')
    let bodyBytes: Uint8Array = enc.encode(bodyText)
    let framing = bodyBytes.length || upper === 'POST' ? [`content-length: ${bodyBytes.length}`] : []
    let host = ['host: 127.0.0.1']
    let framed = true
    let label = 'well-formed'
    switch (mutation) {
      case 0:
        target = insertAt(target, junk)
        framed = /^%/.test(junk) // malformed percent-encoding is still valid HTTP
        label = framed ? 'malformed-percent-in-target' : 'raw-byte-in-target'
        break
      case 1:
        target = `http://evil.example${target}`
        label = 'absolute-form-target'
        break
      case 2:
        target = target.replace(/^\//, '')
        framed = false
        label = 'target-without-slash'
        break
      case 3:
        version = fcPick(['HTTP/1.0', 'HTTP/2.0', 'HTTP/9.9', 'HTTP/1.1.1', 'HTTP/', 'http/1.1', ''], r.target.length)
        framed = version === 'HTTP/1.0'
        label = `version ${version || '(none)'}`
        break
      case 4:
        host = []
        label = 'no-host'
        framed = false
        break
      case 5:
        host = ['host: 127.0.0.1', 'host: evil.example']
        framed = false
        label = 'two-hosts'
        break
      case 6:
        lines = [...lines, ' folded-continuation', 'no-colon-line', 'bad name: x', ': empty-name']
        framed = false
        label = 'broken-header-lines'
        break
      case 7:
        lines = [...lines, `x-junk: a${junk}\u0000b`]
        framed = false
        label = 'nul-in-header'
        break
      case 8:
        framing = [`content-length: ${bodyBytes.length}`, `content-length: ${bodyBytes.length + 5}`]
        framed = false
        label = 'conflicting-content-length'
        break
      case 9:
        framing = [fcPick(['content-length: -1', 'content-length: abc', 'content-length: 1e3', 'content-length: 0x10', 'content-length: 99999999999999999999'], target.length)]
        framed = false
        label = 'bad-content-length'
        break
      case 10: {
        const chunked = `${bodyBytes.length.toString(16)}\r\n${bodyText}\r\n0\r\n\r\n`
        framing = ['transfer-encoding: chunked']
        bodyBytes = enc.encode(chunked)
        method = upper === 'GET' || upper === 'HEAD' ? 'POST' : method
        label = 'chunked'
        break
      }
      case 11:
        framing = ['transfer-encoding: chunked']
        bodyBytes = enc.encode(fcPick(['zz\r\nabc\r\n0\r\n\r\n', '5\r\nab\r\n0\r\n\r\n', '-1\r\n\r\n', 'ffffffffffffffffff\r\nx\r\n0\r\n\r\n', '1;ext="\r\nx\r\n0\r\n\r\n'], target.length))
        framed = false
        label = 'bad-chunked'
        break
      case 12:
        framing = ['transfer-encoding: chunked', `content-length: ${bodyBytes.length}`]
        bodyBytes = enc.encode(`${bodyBytes.length.toString(16)}\r\n${bodyText}\r\n0\r\n\r\n`)
        framed = false
        label = 'chunked-and-content-length'
        break
      case 13:
        lines = lines.map((l) => l.replace(/^x-api-key: /, 'X-API-KEY:    '))
        label = 'header-case-and-spaces'
        break
      case 14:
        method = fcPick(['get', 'GeT', 'G', 'GETT', 'BREW', 'CONNECT', 'TRACE', 'PRI'], target.length)
        framed = method !== 'CONNECT' && method !== 'PRI'
        label = `method ${method}`
        break
      case 15:
        lines = [...lines, `x-big: ${'h'.repeat(fcPick([8_000, 70_000, 300_000], target.length))}`]
        framed = false
        label = 'huge-header'
        break
      case 16:
      case 17:
      case 18:
      case 19:
      case 20: {
        // Host fuzzing: short hosts (a router reading at a fixed offset), hostile ones, and a
        // prefix before the real path, so that a second parse of the URL would see another path.
        const h = fcPick(HOSTILE_HOSTS, target.length + mutation)
        host = [`host: ${h}`]
        // Prefixes that put a `/` where a reader skipping a fixed 11 characters would start the path.
        if (mutation !== 16) target = fcPick(['/xy', '/x', '/', '/qq/zz', '/a', '/api'], target.length + h.length) + target
        // Without a key: the request the gate must refuse, whichever path the router reads.
        if (mutation >= 18) lines = lines.filter((l) => !/^x-api-key:/i.test(l))
        framed = VALID_HOST.test(h)
        label = `host ${JSON.stringify(h)}${mutation !== 16 ? ' + prefix' : ''}${mutation >= 18 ? ', no key' : ''}`
        break
      }
      default:
        break
    }
    if (!PARSED_METHODS.has(method)) framed = false
    if (/[\u0000-\u0020\u007f]/.test(target)) framed = false // a raw space or control byte breaks the request line
    const head = [`${method} ${target} ${version}`.trimEnd(), ...host, ...lines, ...framing, 'connection: close'].join('\r\n') + '\r\n\r\n'
    if (head.length >= LARGE_HEAD_BYTES) framed = false
    const headBytes = /[^\u0000-\u00ff]/.test(head) ? enc.encode(head) : Buffer.from(head, 'latin1')
    const out = new Uint8Array(headBytes.length + bodyBytes.length)
    out.set(headBytes)
    out.set(bodyBytes, headBytes.length)
    const validKey = carriesKey(r.headers, [ctx.keys.valid, ctx.keys.limited]) && lines.some((l) => /^x-api-key:/i.test(l))
    const badHost = host.length === 1 && !VALID_HOST.test(host[0]!.slice('host: '.length))
    return { bytes: out, framed, label, method, target, validKey, badHost }
  })
}

/** Host values: short, long, with ports, IP literals, and malformed ones Bun may pass to the app. */
export const HOSTILE_HOSTS = [
  'a', 'ab', 'abc', 'a:1', 'a:80', 'ab:1', 'abcd', 'localhost', '127.0.0.1', '[::1]', '[::1]:1', 'example.org:65535', 'x'.repeat(250),
  'x"y', '', ' ', 'a b', 'user@evil.com', 'h:99999', 'a/b', 'a\\b', '[::1', 'a:b', 'a;b', "a'b", '<a>', 'a%2fb', 'é.example', 'a..b', '.',
]
/** What the server accepts as a Host (src/http/host-check.ts): anything else may be refused before the app. */
// A Host with a path character makes Bun give the app a bare request target: the server refuses it.
const VALID_HOST = { test: (h: string) => !/[/?#]/.test(h) && validAuthority(`http://${h}/`) }

function insertAt(target: string, junk: string): string {
  const q = target.indexOf('?')
  if (q < 0) return target + '?q=' + junk
  return target.slice(0, q + 1) + 'x=' + junk + '&' + target.slice(q + 1)
}

function fcPick<T>(items: T[], seed: number): T {
  return items[seed % items.length]!
}

export interface RawAnswer {
  status: number
  headers: Headers
  /** The body as text, after undoing its Content-Encoding (as fetch() does). */
  body: string
  /** Why the body could not be decoded by the Content-Encoding it names, when it could not. */
  undecodable?: string
}

/**
 * Sends raw bytes to 127.0.0.1:port and reads the answer until the server closes the connection
 * (requests carry `connection: close`). Undefined when the server closed without answering, or
 * answered nothing within `timeoutMs` (then the socket is closed by us).
 */
export function rawExchange(port: number, bytes: Uint8Array, timeoutMs = 5000): Promise<RawAnswer | undefined> {
  return new Promise((resolve) => {
    const chunks: Uint8Array[] = []
    let pump = () => {}
    let done = false
    let timer: ReturnType<typeof setTimeout> | undefined
    const finish = () => {
      if (done) return
      done = true
      clearTimeout(timer)
      resolve(parseRaw(Buffer.concat(chunks)))
    }
    Bun.connect({
      hostname: '127.0.0.1',
      port,
      socket: {
        open(s) {
          timer = setTimeout(() => {
            s.end()
            finish()
          }, timeoutMs)
          // Large writes may be partial: keep writing until everything went out.
          let off = 0
          pump = () => {
            while (off < bytes.length) {
              const n = s.write(bytes.subarray(off))
              if (n <= 0) return
              off += n
            }
          }
          pump()
        },
        drain() {
          pump()
        },
        data(_s, d) {
          chunks.push(new Uint8Array(d))
        },
        close: finish,
        end: finish,
        error: finish,
        connectError: finish,
      },
    }).catch(finish)
  })
}

function parseRaw(buf: Buffer): RawAnswer | undefined {
  const end = buf.indexOf('\r\n\r\n')
  if (end < 0) return undefined
  const head = buf.subarray(0, end).toString('latin1').split('\r\n')
  const m = /^HTTP\/1\.[01] (\d{3})/.exec(head[0] ?? '')
  if (!m) return undefined
  const headers = new Headers()
  for (const line of head.slice(1)) {
    const i = line.indexOf(':')
    if (i > 0) headers.append(line.slice(0, i).trim(), line.slice(i + 1).trim())
  }
  let rest = buf.subarray(end + 4)
  if (/chunked/i.test(headers.get('transfer-encoding') ?? '')) {
    const parts: Buffer[] = []
    for (;;) {
      const nl = rest.indexOf('\r\n')
      if (nl < 0) break
      const size = parseInt(rest.subarray(0, nl).toString('latin1'), 16)
      if (!size) break
      parts.push(rest.subarray(nl + 2, nl + 2 + size))
      rest = rest.subarray(nl + 2 + size + 2)
    }
    rest = Buffer.concat(parts)
  } else if (headers.has('content-length')) {
    rest = rest.subarray(0, Number(headers.get('content-length')))
  }
  const coding = (headers.get('content-encoding') ?? '').trim().toLowerCase()
  // A HEAD or 304 names the coding its GET would have, with no body to decode.
  if (coding === '' || coding === 'identity' || rest.length === 0) return { status: Number(m[1]), headers, body: rest.toString('utf8') }
  try {
    return { status: Number(m[1]), headers, body: decodeBody(coding, rest).toString('utf8') }
  } catch (e) {
    return { status: Number(m[1]), headers, body: '', undecodable: `body does not decode as its Content-Encoding ${JSON.stringify(coding)}: ${(e as Error).message}` }
  }
}

/** A body with its content coding undone (RFC 9110 §8.4.1): a client asking with `Accept-Encoding: *` may get any of them. */
function decodeBody(coding: string, body: Buffer): Buffer {
  if (coding === 'gzip' || coding === 'x-gzip') return zlib.gunzipSync(body)
  if (coding === 'br') return zlib.brotliDecompressSync(body)
  if (coding === 'zstd') return zlib.zstdDecompressSync(body)
  if (coding === 'deflate') return zlib.inflateSync(body)
  throw new Error('not a coding the service offers')
}

/**
 * Judges one answer received over HTTP. The HTTP layer (Bun's parser, before the app) may refuse
 * a request that is not well-formed HTTP/1.1 by closing the connection, or with a bodiless 400,
 * 431 (head too large) or 505 (unsupported version); only `framed: false` requests may get that.
 * Everything else is the app's answer and must hold checkAnswer.
 */
export function judgeHttpAnswer(w: { method: string; framed: boolean; target?: string; bytes?: Uint8Array }, a: RawAnswer | undefined): { layer: 'app' | 'http'; violations: string[] } {
  if (!a) return { layer: 'http', violations: w.framed ? ['no answer to a well-formed request'] : [] }
  const bare = a.body === '' && !a.headers.get('content-type')
  if (bare && (a.status === 400 || a.status === 431 || a.status === 505) && !w.framed) return { layer: 'http', violations: [] }
  if (a.undecodable !== undefined) return { layer: 'app', violations: [`${a.status} ${a.undecodable}`] }
  // A wire request's target is the second word of its request line.
  const target = w.target ?? (w.bytes ? new TextDecoder().decode(w.bytes.subarray(0, 2048)).split('\r\n', 1)[0]!.split(' ')[1] : undefined)
  return { layer: 'app', violations: checkAnswer(w.method, a.status, a.headers, a.body, target) }
}

/** Whether fetch() sends `r` as well-formed HTTP the parser hands to the app (standard method, head under LARGE_HEAD_BYTES). */
export function reachesApp(r: FuzzRequest): boolean {
  // The target as fetch() sends it: the URL parser percent-encodes what the query may not hold
  // raw (a `'` becomes `%27`, three bytes for one), and header values go out as UTF-8.
  let target = r.target
  try {
    const u = new URL(r.target, 'http://127.0.0.1')
    target = u.pathname + u.search
  } catch {}
  const head = Buffer.byteLength(target) + r.headers.reduce((n, [k, v]) => n + Buffer.byteLength(k) + Buffer.byteLength(v) + 4, 0) + 200
  return PARSED_METHODS.has(r.method) && head < LARGE_HEAD_BYTES
}

// ---------------------------------------------------------------------------------------------
// The property

/**
 * What every answer must be: never a 5xx; a 4xx is a problem document (RFC 9457 §3.1) whose
 * `status` is the HTTP status, with `type`, `title` and `detail`, an `errors` list of
 * {parameter, message} on 400 (on v1 paths `errors` is v1's string and the list is
 * `invalid_params`, src/v1/v1-errors.ts), and `retryAfter` plus Retry-After on 429; a 2xx JSON
 * answer parses.
 * Returns the violations (empty when the answer holds).
 */
/** True when a request target (origin-form or absolute-form) names the MCP endpoint. */
function isMcpTarget(target: string): boolean {
  const path = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*(.*)$/i.exec(target)?.[1] ?? target
  return /^\/mcp\/?(?:[?#]|$)/.test(path)
}

export function checkAnswer(method: string, status: number, headers: Headers, body: string, target?: string): string[] {
  const v: string[] = []
  if (!Number.isInteger(status) || status < 100 || status > 599) return [`status ${status} is not an HTTP status`]
  if (status >= 500) return [`status ${status}: ${body.slice(0, 300)}`]
  const head = method.toUpperCase() === 'HEAD'
  const type = headers.get('content-type') ?? ''
  v.push(...leakViolations(status, type, body))
  if (status >= 400) {
    if (head) return v // no body on HEAD (RFC 9110 §9.3.2)
    // the page a browser gets for an unknown path outside the API (plugins/errors/not-found-page.ts)
    if (status === 404 && /^text\/html/i.test(type)) return body.includes('<title>Page not found') ? v : [...v, '404 HTML that is not the not-found page']
    if (!/json|text\/plain/.test(type)) v.push(`${status} with content-type "${type}"`)
    let doc: any
    try {
      doc = JSON.parse(body)
    } catch {
      return [...v, `${status} body is not JSON: ${JSON.stringify(body.slice(0, 200))}`]
    }
    // The MCP endpoint's protocol errors are its transport's own JSON-RPC error objects (the gates' 401/413/429 stay problems).
    if (target !== undefined && isMcpTarget(target) && doc?.jsonrpc === '2.0' && typeof doc?.error?.code === 'number' && typeof doc.error.message === 'string' && doc.error.message !== '') return v
    if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return [...v, `${status} body is not an object`]
    if (typeof doc.type !== 'string' || !doc.type.startsWith('/errors/')) v.push(`type ${JSON.stringify(doc.type)}`)
    if (typeof doc.title !== 'string' || doc.title === '') v.push(`title ${JSON.stringify(doc.title)}`)
    if (doc.status !== status) v.push(`body status ${JSON.stringify(doc.status)} differs from HTTP ${status}`)
    if (typeof doc.detail !== 'string' || doc.detail === '') v.push(`detail ${JSON.stringify(doc.detail)}`)
    const v1 = typeof doc.errors === 'string'
    if (v1 && doc.errors === '') v.push('v1 problem with an empty errors string')
    if (status === 400) {
      const list = v1 ? doc.invalid_params : doc.errors
      if (!Array.isArray(list) || list.length === 0) v.push('400 without an errors list')
      else for (const e of list) if (typeof e?.parameter !== 'string' || typeof e?.message !== 'string' || e.message === '') v.push(`errors item ${JSON.stringify(e).slice(0, 120)}`)
    }
    if (status === 429) {
      if (!Number.isInteger(doc.retryAfter) || doc.retryAfter < 0) v.push(`429 retryAfter ${JSON.stringify(doc.retryAfter)}`)
      if (!/^\d+$/.test(headers.get('retry-after') ?? '')) v.push(`429 Retry-After header ${JSON.stringify(headers.get('retry-after'))}`)
    }
    if (status === 405 && !headers.get('allow')) v.push('405 without Allow')
    return v
  }
  if (status >= 200 && status < 300 && !head && /json/.test(type)) {
    try {
      JSON.parse(body)
    } catch {
      v.push(`${status} JSON body does not parse: ${JSON.stringify(body.slice(0, 200))}`)
    }
  }
  return v
}

/**
 * What no answer may carry: a stack frame, a file path of the server, or HTML other than the
 * documentation page (a 2xx text/html; every other answer is JSON): Bun's development error
 * page had all three.
 */
export function leakViolations(status: number, type: string, body: string): string[] {
  const v: string[] = []
  const html = /html/i.test(type) || /<html|<!doctype/i.test(body.slice(0, 2000))
  // HTML only as a page: a 2xx page of the site, or the 404 page a browser gets outside the API.
  if (html && !(((status >= 200 && status < 300) || status === 404) && /^text\/html/i.test(type))) v.push(`${status} answer is HTML`)
  if (/\bat\s+(?:\S+\s+)?\(?(?:\/|file:\/\/)[^\s)]+:\d+:\d+\)?/.test(body)) v.push(`${status} answer carries a stack frame`)
  if (/\/work\/|\/home\/|\/root\/|node_modules\/|\/(?:src|app|plugins|index-builder)\/[\w/-]+\.ts\b/.test(body)) v.push(`${status} answer carries a server file path`)
  return v
}

/** Paths that need no key (the service's declared open routes; trailing slash ignored): written out here, so the judge does not take the app's word for it. */
const OPEN_PATHS = new Set(['/', '/health', '/favicon.ico', '/api/v2/openapi.json', '/api/v2/docs'])
/** The site's pages: the key dashboard (its own session) and the public rover pages. */
const OPEN_PAGES = /^\/(?:dashboard(?:\/(?:sign-in|link|confirm|key|sign-out|account\/delete))?|rovers\/[^/]+)$/

/**
 * A request that reaches a keyed handler without a valid key is a violation: without one, every
 * path but the open ones must answer 401 (or 429 from the failed-key throttle, or 400 for a
 * malformed Host). `validKey`: the request carried a key the service knows and accepts.
 */
export function keyViolations(target: string, validKey: boolean, status: number, body: string, badHost = false): string[] {
  if (validKey || status === 401 || status === 429) return []
  if (status === 400 && (badHost || body.includes('"parameter":"Host"'))) return []
  let path = target.replace(/^[a-z]+:\/\/[^/]*/i, '')
  const cut = path.search(/[?#]/)
  if (cut >= 0) path = path.slice(0, cut)
  // A request built in process has its dot segments resolved by the URL parser (RFC 3986
  // §5.2.4: `/rovers/../..` is `/`); on the wire Bun routes the target as sent (`/rovers/.` is a
  // rover page). The path is open when the form the server saw is: either one.
  const open = (p: string) => {
    if (p.length > 1 && p.endsWith('/')) p = p.slice(0, -1)
    return OPEN_PATHS.has(p) || OPEN_PAGES.test(p)
  }
  if (open(path)) return []
  // Outside the API (no `api` or `mars-photos` segment, in any case, encoded or not) an unknown path is a plain 404 (or 405).
  if ((status === 404 || status === 405) && !MEANT_FOR_API.test(path) && !MEANT_FOR_API.test(decodedPath(path))) return []
  try {
    if (/(^|\/)\.\.?(\/|$)/.test(path) && open(new URL(path, 'http://judge').pathname)) return []
  } catch {
    /* not a path a URL can hold: judged as sent */
  }
  return [`${status} without a valid key for a path that is not open (${path.slice(0, 80)})`]
}

const MEANT_FOR_API = /(?:^|\/)(?:api|mars-photos)(?:\/|$)/i
function decodedPath(p: string): string {
  try {
    return decodeURIComponent(p)
  } catch {
    return p.replace(/%[0-9a-f]{2}/gi, (h) => String.fromCharCode(parseInt(h.slice(1), 16)))
  }
}

/** Whether `headers` carry one of `keys` as X-API-Key (any case of the name, surrounding spaces trimmed as HTTP does). */
export function carriesKey(headers: Array<[string, string]>, keys: Array<string | undefined>): boolean {
  const sent = headers.filter(([k]) => k.toLowerCase() === 'x-api-key').map(([, v]) => v.trim())
  return sent.length === 1 && keys.includes(sent[0])
}

/**
 * A sibling of `target` that a careless cache key would confuse with it: one parameter name
 * re-cased, two parameters swapped, or a parameter repeated with another value in front.
 * `n` picks which. Undefined when the target has no query to vary.
 */
export function siblingTarget(target: string, n: number): string | undefined {
  const q = target.indexOf('?')
  if (q < 0 || q === target.length - 1) return undefined
  const parts = target.slice(q + 1).replace(/#.*$/, '').split('&').filter((x) => x !== '')
  if (parts.length === 0) return undefined
  const i = n % parts.length
  const [name = '', value = ''] = parts[i]!.split('=')
  switch (n % 3) {
    case 0: {
      const other = name === name.toUpperCase() ? name.toLowerCase() : name.toUpperCase()
      if (other === name) return undefined
      parts[i] = `${other}=${value}`
      break
    }
    case 1:
      if (parts.length < 2) return undefined
      parts.push(parts.splice(i, 1)[0]!)
      break
    default:
      parts.splice(i, 0, `${name}=${value === '1' ? '2' : '1'}`)
  }
  return `${target.slice(0, q)}?${parts.join('&')}`
}

/** A short description of a request for reports (long values cut). */
export function describe(r: FuzzRequest): string {
  const cut = (s: string, n = 160) => (s.length > n ? `${s.slice(0, n)}…(${s.length} chars)` : s)
  const hs = r.headers.map(([k, v]) => `${k}: ${cut(k === 'x-api-key' ? '<key ' + v.length + ' chars>' : v, 60)}`).join(' | ')
  return `${r.method} ${cut(r.target)}${hs ? ` [${hs}]` : ''}${r.body !== undefined ? ` body=${JSON.stringify(cut(r.body, 120))}` : ''}`
}

// ---------------------------------------------------------------------------------------------
// Discovery

/**
 * Learns the routes (OpenAPI document) and real ids, nasa_ids, cursors and field names from the
 * running service through `call` (path -> Response, keyed with `keys.valid`).
 */
export async function discoverContext(call: (path: string, init?: RequestInit) => Promise<Response>, keys: FuzzContext['keys']): Promise<FuzzContext> {
  const doc = (await (await call('/api/v2/openapi.json')).json()) as { paths: Record<string, Record<string, { parameters?: Array<{ in: string; name: string; schema: Record<string, unknown> }>; responses?: Record<string, { content?: Record<string, unknown> }> }>> }
  const routes: RouteSpec[] = []
  for (const [p, ops] of Object.entries(doc.paths)) {
    for (const [m, op] of Object.entries(ops)) {
      // A live stream (Server-Sent Events) never ends, so an answer cannot be read whole: its
      // refusals and events are tested in test/photo-stream.test.ts.
      if (op.responses?.['200']?.content?.['text/event-stream']) continue
      routes.push({
        method: m.toUpperCase(),
        path: p.replace(/\{([^}]+)\}/g, ':$1'),
        query: (op.parameters ?? []).filter((x) => x.in === 'query').map((x) => ({ name: x.name, schema: x.schema ?? {} })),
      })
    }
  }
  const json = async (path: string): Promise<any> => {
    const r = await call(path)
    return r.ok ? r.json() : {}
  }
  const photos = await json('/api/v2/photos?per_page=100&sort=-sol')
  const more = await json('/api/v2/photos?per_page=50&sort=sol')
  const locations = await json('/api/v2/locations?per_page=50')
  const panoramas = await json('/api/v2/panoramas?per_page=50')
  const all = [...(photos.data ?? []), ...(more.data ?? [])]
  const cursors = [photos, more, await json('/api/v2/photos?per_page=3&rovers=curiosity&sort=sol,-id')]
    .map((x) => x?.pagination?.cursor?.next)
    .filter((c): c is string => typeof c === 'string')
  const fieldNames = [...new Set(all.flatMap((p: any) => Object.keys(p.attributes ?? {})))].filter((f) => typeof f === 'string')
  const listed = await call(MCP_PATH, { method: 'POST', headers: MCP_HEADERS, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) })
    .then((r) => (r.ok ? r.json() : {}))
    .catch(() => ({}))
  const tools: McpToolSpec[] = ((listed as any)?.result?.tools ?? []).map((t: any) => ({ name: String(t.name), args: t.inputSchema?.properties ?? {} }))
  return {
    routes,
    photoIds: all.map((p: any) => p.id).filter((x: unknown) => typeof x === 'number'),
    nasaIds: all.map((p: any) => p.attributes?.nasa_id).filter((x: unknown) => typeof x === 'string'),
    locationIds: (locations.data ?? []).map((l: any) => l.id),
    panoramaIds: (panoramas.data ?? []).map((l: any) => l.id),
    cursors,
    fieldNames: fieldNames.length ? fieldNames : ['sol', 'earth_date'],
    keys,
    tools,
  }
}
