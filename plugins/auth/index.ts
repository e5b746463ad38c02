import { Elysia } from 'elysia'
import type { AppDeps } from '../../src/app-deps'
import { authenticate, needsKey } from './authenticate'
import { setKeyOf } from './key-of'
import { pathOf } from './path-of'

export { keyOf } from './key-of'

/**
 * X-API-Key -> key record, or 401 (interface.md, Authentication). Runs at onRequest, before
 * routing and validation, so that no answer under /api (400, 404 and 405 included) is given
 * without a valid key. The key value is never logged or stored; the record carries its id.
 */
export function authPlugin(deps: AppDeps) {
  return new Elysia({ name: 'auth' }).onRequest(({ request }) => {
    if (!needsKey(pathOf(request.url))) return
    setKeyOf(request, authenticate(request.headers.get('x-api-key'), deps.keys))
  })
}
