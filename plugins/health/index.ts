import { Elysia } from 'elysia'
import type { AppDeps } from '../../src/app-deps'

// PLACEHOLDER: replaced by the owner of plugins/health.
export function healthPlugin(_deps: AppDeps) {
  return new Elysia({ name: 'health' })
}
