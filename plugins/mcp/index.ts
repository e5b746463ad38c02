import { Type } from '@sinclair/typebox'
import type { PluginDeps } from '../../src/app-deps'
import { ProblemError, validationError } from '../../src/http/problems'
import { readCappedBody } from '../../src/http/read-capped-body'
import { route, routesPlugin } from '../../src/http/route'
import { originFor } from '../../src/http/links'
import { catalogueTools, type CatalogueTool } from '../../src/mcp/catalogue-tools'
import { mcpAnswer } from '../../src/mcp/mcp-answer'

export const MCP_PATH = '/mcp'
const OPENAPI_PATH = '/api/v2/openapi.json'

/**
 * The Model Context Protocol endpoint: POST /mcp (GET and DELETE are 405 with a JSON-RPC error:
 * stateless, so no event stream to open and no session to end). Keyed and counted like every route:
 * the auth and rate-limit gates answer 401/429 before the transport sees the message, and the
 * POST holds one in-flight slot until its answer is built. The tools answer in process through
 * the routes' own answers (src/mcp/catalogue-tools.ts), from the snapshot this request pinned and
 * its origin: one POST is one request, however many tool calls it carries.
 */
export function mcpPlugin(deps: PluginDeps) {
  deps.routes.describeTag('mcp', 'The catalogue as Model Context Protocol tools for assistants and agents (docs/mcp.md): the same answers, keys and limits as the HTTP API.')
  let tools: CatalogueTool[] | undefined
  // Read from the app's declared routes on first use: every plugin has declared its routes by then.
  const toolsNow = () => (tools ??= catalogueTools(deps.routes))
  const openApi = () => {
    const answer = deps.routes.answerOf('GET', OPENAPI_PATH)
    if (answer === undefined) throw new Error(`MCP resource: ${OPENAPI_PATH} has no in-process answer`)
    return answer(deps.stores.current, new URLSearchParams(), '', '')
  }
  const failed = (tool: string, error: unknown) => deps.log.log('error', 'mcp.tool-failed', { tool, error: error instanceof Error ? error.message : String(error) })
  const timeoutMs = (deps.config.bodyTimeoutS ?? 10) * 1000
  const answer = async ({ request }: { request: Request }) => {
    // Read here, capped and with a deadline like every body, then handed to the transport to parse.
    const body = await readCappedBody(request, deps.config.maxBodyBytes, timeoutMs)
    if ('refused' in body) {
      if (body.refused === 413) throw new ProblemError('payloadTooLarge', `The request body is larger than the limit of ${deps.config.maxBodyBytes} bytes.`)
      if (body.refused === 408) throw new ProblemError('requestTimeout', `The request body did not arrive within ${timeoutMs / 1000} s.`, { headers: { connection: 'close' } })
      throw validationError([{ parameter: 'body', message: 'was cut off: the connection closed before the body was complete' }])
    }
    const message = new Request(request.url, { method: 'POST', headers: request.headers, body: body.text })
    const context = { tools: toolsNow(), store: deps.stores.forRequest(request), base: originFor(request, deps.config), openApi, failed }
    return mcpAnswer(message, context, deps.config.maxBodyBytes)
  }
  // What the SDK's stateless servers answer to GET (no event stream to open) and DELETE (no session to end).
  const notAllowed = () =>
    new Response(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this server is stateless; send messages with POST.' }, id: null }), {
      status: 405,
      headers: { allow: 'POST', 'content-type': 'application/json' },
    })
  const id = Type.Union([Type.String(), Type.Integer(), Type.Null()])
  const reply = Type.Object({ jsonrpc: Type.Literal('2.0'), id, result: Type.Optional(Type.Unknown()), error: Type.Optional(Type.Object({ code: Type.Integer(), message: Type.String(), data: Type.Optional(Type.Unknown()) })) }, { description: 'A JSON-RPC 2.0 response' })
  const message = Type.Object({ jsonrpc: Type.Literal('2.0'), id: Type.Optional(id), method: Type.String(), params: Type.Optional(Type.Unknown()) }, { description: 'A JSON-RPC 2.0 request or notification (MCP: initialize, tools/list, tools/call, resources/list, resources/read)' })
  const doc = {
    path: MCP_PATH,
    tags: ['mcp'],
    responses: { 200: { description: 'The JSON-RPC answer (an array for a batch)', schema: Type.Union([reply, Type.Array(reply)]) }, 401: { description: 'No or unknown key' }, 408: { description: 'Body too slow' }, 413: { description: 'Body too large' }, 429: { description: 'Over a limit of the key' } },
  }
  return routesPlugin(deps, 'mcp', 'mcp', [
    route({
      ...doc,
      method: 'POST',
      body: Type.Union([message, Type.Array(message)]),
      summary: 'Model Context Protocol (Streamable HTTP, stateless, JSON answers): the catalogue as tools for assistants and agents',
      description: 'Tools search_photos, get_photos, photo_stats, list_rovers, rover_manifest, rover_traverse, list_cameras, find_locations, find_panoramas, related_photos, each answering as the HTTP route it names; resources: this OpenAPI document and a guide. Each POST counts as one request and holds one in-flight slot, however many tool calls it carries. Protocol errors are JSON-RPC error bodies from the MCP transport (400 malformed message, 406 Accept without application/json and text/event-stream, 415 body not JSON); GET and DELETE are 405. See docs/mcp.md.',
      hook: { parse: 'none' },
      handle: answer,
    }),
    route({ ...doc, method: 'GET', summary: 'Model Context Protocol: no event stream (stateless server): 405', hidden: true, handle: notAllowed }),
    route({ ...doc, method: 'DELETE', summary: 'Model Context Protocol: no session to end (stateless server): 405', hidden: true, hook: { parse: 'none' }, handle: notAllowed }),
  ])
}
