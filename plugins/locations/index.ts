import { Elysia } from 'elysia'
import type { AppDeps } from '../../src/app-deps'

// PLACEHOLDER: replaced by the owner of plugins/locations.
export function locationsPlugin(_deps: AppDeps) {
  return new Elysia({ name: 'locations' })
}
