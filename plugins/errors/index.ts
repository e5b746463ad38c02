import { Elysia } from 'elysia'
import type { AppDeps } from '../../src/app-deps'

// PLACEHOLDER: replaced by the owner of plugins/errors.
export function errorsPlugin(_deps: AppDeps) {
  return new Elysia({ name: 'errors' })
}
