import { Elysia } from 'elysia'
import type { AppDeps } from '../../src/app-deps'

// PLACEHOLDER: replaced by the owner of plugins/photos.
export function photosPlugin(_deps: AppDeps) {
  return new Elysia({ name: 'photos' })
}
