import { Elysia } from 'elysia'
import type { AppDeps } from '../../src/app-deps'

// PLACEHOLDER: replaced by the owner of plugins/etag.
export function etagPlugin(_deps: AppDeps) {
  return new Elysia({ name: 'etag' })
}
