import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import { CallToolRequestSchema, ErrorCode, ListResourcesRequestSchema, ListToolsRequestSchema, McpError, ReadResourceRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { SERVICE_VERSION } from '../service-version'
import { CATALOGUE_GUIDE } from './catalogue-guide'
import type { CatalogueTool, ToolContext, ToolResult } from './catalogue-tools'

export const OPENAPI_URI = 'mars-api://openapi.json'
export const GUIDE_URI = 'mars-api://guide.md'

/** The MCP error of a resource URI the server does not have (the protocol's "Resource not found"). */
const RESOURCE_NOT_FOUND = -32002

const RESOURCES = [
  { uri: OPENAPI_URI, name: 'openapi', title: 'OpenAPI document', description: 'The HTTP API the tools answer as: every route, parameter and answer schema.', mimeType: 'application/json' },
  { uri: GUIDE_URI, name: 'guide', title: 'How to query this catalogue', description: 'Which tool answers what, how arguments are written, and an example.', mimeType: 'text/markdown' },
]

/** What one message is answered from: the tools, the OpenAPI document's text, the tool context, and where a tool's failure is told. */
export interface McpContext extends ToolContext {
  tools: readonly CatalogueTool[]
  openApi: () => string
  /** Called with a tool's unexpected exception (never a problem: those are tool errors); the client gets a generic tool error. */
  failed: (tool: string, error: unknown) => void
}

/**
 * One MCP message exchange, stateless: a new protocol server and Web-standard Streamable HTTP
 * transport per request (the SDK's stateless pattern: no session id, so any worker answers any
 * message), JSON answers rather than an event stream. Protocol errors are the transport's own
 * (400/404/405/406/415 with JSON-RPC error bodies). The tools answer in process from the
 * snapshot and origin of `context`: the message is the one request counted.
 */
export async function mcpAnswer(request: Request, context: McpContext, maxBodyBytes: number): Promise<Response> {
  const { tools } = context
  const server = new Server({ name: 'mars-rover-photos', version: SERVICE_VERSION }, { capabilities: { tools: {}, resources: {} } })
  const byName = new Map(tools.map((t) => [t.name, t]))
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema })) }))
  server.setRequestHandler(CallToolRequestSchema, (req): ToolResult => {
    const tool = byName.get(req.params.name)
    if (tool === undefined) return { content: [{ type: 'text', text: `unknown tool "${req.params.name.slice(0, 64)}"; tools: ${tools.map((t) => t.name).join(', ')}` }], isError: true }
    try {
      return tool.run(req.params.arguments ?? {}, context)
    } catch (e) {
      context.failed(tool.name, e)
      return { content: [{ type: 'text', text: JSON.stringify({ status: 500, title: 'Internal Server Error', detail: 'The tool failed on the server; the failure is logged.' }) }], isError: true }
    }
  })
  server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: RESOURCES }))
  server.setRequestHandler(ReadResourceRequestSchema, (req) => {
    if (req.params.uri === GUIDE_URI) return { contents: [{ uri: GUIDE_URI, mimeType: 'text/markdown', text: CATALOGUE_GUIDE }] }
    if (req.params.uri === OPENAPI_URI) return { contents: [{ uri: OPENAPI_URI, mimeType: 'application/json', text: context.openApi() }] }
    throw new McpError(RESOURCE_NOT_FOUND, `unknown resource "${req.params.uri.slice(0, 64)}"; resources: ${RESOURCES.map((r) => r.uri).join(', ')}`)
  })
  paramsRefusedAsInvalid(server)
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true, maxRequestBodySize: maxBodyBytes })
  await server.connect(transport)
  try {
    return await transport.handleRequest(request)
  } finally {
    void server.close().catch(() => {})
  }
}

type RequestHandler = (request: unknown, extra: unknown) => unknown

/**
 * The SDK checks a request's params against the method's schema before the handler runs and
 * answers a refusal as an internal error (-32603) carrying the validator's whole report; params
 * the validator itself trips on (an object whose `constructor` is null where a record belongs)
 * are a -32603 TypeError. Either way the client sent the bad params: it is an Invalid params
 * error (-32602), naming the first few problems when the validator listed them. Wraps the
 * handlers the server holds (the protocol's own, initialize and ping, and ours). What a handler
 * throws synchronously is that check's: ours never throw but an McpError (the tools catch their
 * own failures), which passes as it is. When a later SDK keeps the handlers elsewhere nothing is
 * wrapped, and the fuzzer's check on -32603 answers (test/support/fuzz-arbitraries.ts,
 * mcpViolations) says so.
 */
function paramsRefusedAsInvalid(server: Server): void {
  const handlers = (server as unknown as { _requestHandlers?: unknown })._requestHandlers
  if (!(handlers instanceof Map)) return
  for (const [method, handler] of handlers as Map<string, RequestHandler>) {
    handlers.set(method, (request: unknown, extra: unknown) => {
      try {
        return handler(request, extra)
      } catch (e) {
        throw e instanceof McpError ? e : invalidParams(e)
      }
    })
  }
}

function invalidParams(e: unknown): McpError {
  const issues = (e as { issues?: unknown })?.issues
  if (!Array.isArray(issues)) return new McpError(ErrorCode.InvalidParams, 'Invalid params: they do not fit the method\'s schema')
  const named = issues.slice(0, 3).map((i: { path?: unknown[]; message?: unknown }) => {
    const path = (i.path ?? []).map((p) => String(p).slice(0, 40)).join('.')
    return `${path || 'message'}: ${String(i.message ?? 'invalid').slice(0, 120)}`
  })
  return new McpError(ErrorCode.InvalidParams, `Invalid params: ${named.join('; ')}${issues.length > 3 ? ` (and ${issues.length - 3} more)` : ''}`)
}
