import { Elysia } from 'elysia'
import type { AppDeps } from '../../src/app-deps'

// PLACEHOLDER: replaced by the owner of plugins/rate-limit.
export function rateLimitPlugin(_deps: AppDeps) {
  return new Elysia({ name: 'rate-limit' })
}
