import { Elysia } from 'elysia'
import type { AppDeps } from '../../src/app-deps'

// PLACEHOLDER: replaced by the owner of plugins/docs.
export function docsPlugin(_deps: AppDeps) {
  return new Elysia({ name: 'docs' })
}
