import { Elysia } from 'elysia'
import type { AppDeps } from '../../src/app-deps'

// PLACEHOLDER: replaced by the owner of plugins/cameras.
export function camerasPlugin(_deps: AppDeps) {
  return new Elysia({ name: 'cameras' })
}
