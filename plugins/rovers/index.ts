import { Elysia } from 'elysia'
import type { AppDeps } from '../../src/app-deps'

// PLACEHOLDER: replaced by the owner of plugins/rovers.
export function roversPlugin(_deps: AppDeps) {
  return new Elysia({ name: 'rovers' })
}
