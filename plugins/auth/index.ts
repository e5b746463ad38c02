import { Elysia } from 'elysia'
import type { AppDeps } from '../../src/app-deps'

// PLACEHOLDER: replaced by the owner of plugins/auth.
export function authPlugin(_deps: AppDeps) {
  return new Elysia({ name: 'auth' })
}
