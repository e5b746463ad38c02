import { pagePolicy } from '../../src/http/html-security'
import { Type } from '@sinclair/typebox'
import type { PluginDeps } from '../../src/app-deps'
import { JsonBody } from '../../src/http/json-body'
import { origin } from '../../src/http/links'
import { route, routesPlugin } from '../../src/http/route'
import { API_PREFIX, apiRoot, ApiRootSchema } from './api-root'
import { docsPage } from './docs-page'
import { favicon } from './favicon'
import { landingPage } from './landing-page'
import { sampleNote } from '../../src/query/stats/catalogue-share'
import { perSnapshot } from '../../src/store/per-snapshot'
import { openApiDocument } from './openapi-document'
import { withCodeSamples } from './code-samples'

/**
 * Discovery: GET /api/v2 (keyed and counted like every API call), the OpenAPI 3.1 document at
 * /api/v2/openapi.json and its viewer at /api/v2/docs. The last two need no key and are not
 * counted (decided here: the description of a public interface is public; plugins/auth lists them).
 * The OpenAPI document is generated from the app's route declarations once (again only when a
 * route is declared later), with a relative server URL: it is the same for every Host, so a
 * client rotating Host headers cannot make the server rebuild it per request.
 */
export function docsPlugin(deps: PluginDeps) {
  const routes = () => deps.routes.documented()
  const memo = new Map<string, string>()
  let memoRoutes = -1
  const cached = (key: string, make: () => string) => {
    if (deps.routes.size !== memoRoutes) {
      memo.clear()
      memoRoutes = deps.routes.size
    }
    let v = memo.get(key)
    if (v === undefined) {
      v = make()
      if (memo.size > 64) memo.clear()
      memo.set(key, v)
    }
    return v
  }

  const rootText = (request: Request) => {
    const base = origin(request, deps.config)
    return cached('root ' + base, () => JSON.stringify(apiRoot(routes(), base)))
  }
  // The document and the reference page rendered from it, again only when a route is declared later.
  let openApi: { size: number; text: string; page: string } | undefined
  const rendered = () => {
    if (openApi === undefined || openApi.size !== deps.routes.size) {
      const doc = withCodeSamples(openApiDocument(routes(), '/', (name) => deps.routes.tagDescription(name)) as Parameters<typeof withCodeSamples>[0])
      openApi = { size: deps.routes.size, text: JSON.stringify(doc), page: docsPage(doc as Parameters<typeof docsPage>[0]) }
    }
    return openApi
  }
  const openApiText = () => rendered().text

  // `=> new JsonBody(...)`: Elysia reads these as synchronous (src/http/sync-hook.ts).
  // One page per index snapshot: whether it is a sample, and of how many photos, changes on reload.
  const landing = perSnapshot((store) => {
    const html = landingPage(sampleNote(store).note)
    return { html, headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'public, max-age=3600', 'content-security-policy': pagePolicy(html) } }
  })
  const icon = favicon()
  // Each page's inline style is allowed by its hash (src/http/html-security.ts).
  let docsHeaders: { page: string; headers: Record<string, string> } | undefined
  const docsAnswer = () => {
    const page = rendered().page
    if (docsHeaders === undefined || docsHeaders.page !== page) docsHeaders = { page, headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'public, max-age=3600', 'content-security-policy': pagePolicy(page) } }
    return new Response(page, { headers: docsHeaders.headers })
  }
  return routesPlugin(deps, 'docs', 'service', [
    route({
      method: 'GET',
      path: API_PREFIX,
      summary: 'API root: the resources and their links',
      tags: ['service'],
      responses: { 200: { description: 'Self-description with absolute links', schema: ApiRootSchema } },
      handle: ({ request }) => new JsonBody(rootText(request)),
    }),
    route({
      method: 'GET',
      path: `${API_PREFIX}/openapi.json`,
      summary: 'This OpenAPI 3.1 document',
      tags: ['service'],
      keyed: false,
      responses: { 200: { description: 'The OpenAPI document', schema: Type.Object({ openapi: Type.String(), info: Type.Object({}), paths: Type.Object({}) }, { description: 'An OpenAPI 3.1 document' }) } },
      answer: () => openApiText(),
      handle: () => new JsonBody(openApiText(), 200, { 'cache-control': 'public, max-age=3600' }),
    }),
    route({
      method: 'GET',
      path: `${API_PREFIX}/docs`,
      summary: 'Browsable reference (HTML)',
      tags: ['service'],
      keyed: false,
      responses: { 200: { description: 'An HTML page rendering the OpenAPI document', mediaType: 'text/html', schema: Type.String() } },
      handle: () => docsAnswer(),
    }),
    route({
      method: 'GET',
      path: '/',
      summary: 'Landing page (HTML) linking the reference, the OpenAPI document, health and the dashboard',
      tags: ['service'],
      keyed: false,
      responses: { 200: { description: 'A small HTML page', mediaType: 'text/html', schema: Type.String() } },
      handle: ({ request }) => {
        const page = landing(deps.stores.forRequest(request))
        return new Response(page.html, { headers: page.headers })
      },
    }),
    route({
      method: 'GET',
      path: '/favicon.ico',
      summary: 'The site icon',
      keyed: false,
      hidden: true,
      responses: { 200: { description: 'A 32×32 icon', mediaType: 'image/x-icon' } },
      handle: () => new Response(icon, { headers: { 'content-type': 'image/x-icon', 'cache-control': 'public, max-age=86400' } }),
    }),
  ])
}
