import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import { CallToolRequestSchema, ListResourcesRequestSchema, ListToolsRequestSchema, ReadResourceRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { SERVICE_VERSION } from '../service-version'
import { CATALOGUE_GUIDE } from './catalogue-guide'
import type { ApiCall, CatalogueTool } from './catalogue-tools'

export const OPENAPI_URI = 'mars-api://openapi.json'
export const GUIDE_URI = 'mars-api://guide.md'
const OPENAPI_PATH = '/api/v2/openapi.json'

const RESOURCES = [
  { uri: OPENAPI_URI, name: 'openapi', title: 'OpenAPI document', description: 'The HTTP API this server\'s tools answer through: every route, parameter and answer schema.', mimeType: 'application/json' },
  { uri: GUIDE_URI, name: 'guide', title: 'How to query this catalogue', description: 'Which tool answers what, how arguments are written, and an example.', mimeType: 'text/markdown' },
]

/**
 * One MCP message exchange, stateless: a new protocol server and Web-standard Streamable HTTP
 * transport per request (the SDK's stateless pattern: no session id, so any worker answers any
 * message), JSON answers rather than an event stream. Protocol errors are the transport's own
 * (400/404/405/406/415 with JSON-RPC error bodies). `api` makes the API requests the tools answer
 * through, with the caller's key.
 */
export async function mcpAnswer(request: Request, tools: readonly CatalogueTool[], api: ApiCall, maxBodyBytes: number): Promise<Response> {
  const server = new Server({ name: 'mars-rover-photos', version: SERVICE_VERSION }, { capabilities: { tools: {}, resources: {} } })
  const byName = new Map(tools.map((t) => [t.name, t]))
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema })) }))
  server.setRequestHandler(CallToolRequestSchema, async (req) => {
    const tool = byName.get(req.params.name)
    if (tool === undefined) return { content: [{ type: 'text', text: `unknown tool "${req.params.name}"; tools: ${tools.map((t) => t.name).join(', ')}` }], isError: true }
    return tool.run(req.params.arguments ?? {}, api)
  })
  server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: RESOURCES }))
  server.setRequestHandler(ReadResourceRequestSchema, async (req) => {
    if (req.params.uri === GUIDE_URI) return { contents: [{ uri: GUIDE_URI, mimeType: 'text/markdown', text: CATALOGUE_GUIDE }] }
    if (req.params.uri === OPENAPI_URI) return { contents: [{ uri: OPENAPI_URI, mimeType: 'application/json', text: await (await api(OPENAPI_PATH, new URLSearchParams())).text() }] }
    throw new Error(`unknown resource "${req.params.uri}"; resources: ${RESOURCES.map((r) => r.uri).join(', ')}`)
  })
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true, maxRequestBodySize: maxBodyBytes })
  await server.connect(transport)
  try {
    return await transport.handleRequest(request)
  } finally {
    void server.close().catch(() => {})
  }
}
