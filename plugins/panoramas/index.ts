import { Elysia } from 'elysia'
import type { AppDeps } from '../../src/app-deps'

// PLACEHOLDER: replaced by the owner of plugins/panoramas.
export function panoramasPlugin(_deps: AppDeps) {
  return new Elysia({ name: 'panoramas' })
}
