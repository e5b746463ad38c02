import { Elysia } from 'elysia'
import type { AppDeps } from '../../src/app-deps'

// PLACEHOLDER: replaced by the owner of plugins/content-type.
export function contentTypePlugin(_deps: AppDeps) {
  return new Elysia({ name: 'content-type' })
}
