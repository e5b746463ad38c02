/**
 * A small program over the typed client (openapi-fetch + the types openapi-typescript generated
 * from the served OpenAPI document into ./src/schema.ts). The contract test type-checks it with
 * TypeScript 5 and runs it against the app: every call below is typed end to end, so a renamed
 * parameter or a changed answer shape fails the type-check before it fails a user.
 */
import createClient from 'openapi-fetch'
import type { paths } from './src/schema'

export type MarsClient = ReturnType<typeof createClient<paths>>

export function marsClient(baseUrl: string, apiKey: string, fetchImpl?: (request: Request) => Promise<Response>): MarsClient {
  return createClient<paths>({ baseUrl, headers: { 'X-API-Key': apiKey }, ...(fetchImpl ? { fetch: fetchImpl } : {}) })
}

export interface TourResult {
  filteredTotal: number
  walkedIds: number[]
  batchFound: number[]
  batchMissing: number[]
  statsGroups: number
  rovers: string[]
  cameraRovers: string[]
  locations: number
  panoramas: number
  missingPhotoStatus: number
  badParameterNames: string[]
}

/** One page of Spirit's photos (sol only), continuing after `cursor` ('' for the first page). */
function spiritPage(client: MarsClient, cursor: string) {
  return client.GET('/api/v2/photos', { params: { query: { rovers: 'spirit', per_page: 20, cursor, fields: 'sol' } } })
}

export async function tour(client: MarsClient): Promise<TourResult> {
  // Photos with filters, a preset and an include.
  const filtered = await client.GET('/api/v2/photos', {
    params: { query: { rovers: 'curiosity', cameras: 'NAVCAM', sol_min: 1000, per_page: 5, sort: '-sol', field_set: 'extended', include: 'rover,camera' } },
  })
  if (!filtered.data) throw new Error(`photos: ${filtered.response.status}`)
  const first = filtered.data.data[0]
  if (first && first.relationships?.rover?.id !== 'curiosity') throw new Error('include=rover did not name curiosity')

  // A cursor walk over a small filter: every photo once, in order.
  const walkedIds: number[] = []
  let cursor: string | undefined = ''
  for (let pages = 0; cursor !== undefined && pages < 50; pages++) {
    const page = await spiritPage(client, cursor)
    if (!page.data) throw new Error(`cursor page: ${page.response.status}`)
    for (const p of page.data.data) walkedIds.push(p.id)
    cursor = page.data.pagination.cursor?.next
  }

  // Batch: two known ids (the first two walked) and one that no photo has.
  const ids = [...walkedIds.slice(0, 2), 2_000_000_000]
  const batch = await client.POST('/api/v2/photos/batch', { body: { ids }, params: { query: { field_set: 'minimal' } } })
  if (!batch.data) throw new Error(`batch: ${batch.response.status}`)

  const one = await client.GET('/api/v2/photos/{id}', { params: { path: { id: walkedIds[0]! }, query: { field_set: 'complete' } } })
  if (one.data?.data.id !== walkedIds[0]) throw new Error('photo by id')
  const missing = await client.GET('/api/v2/photos/{id}', { params: { path: { id: 2_000_000_000 } } })

  const stats = await client.GET('/api/v2/photos/stats', { params: { query: { group_by: 'rover' } } })
  if (!stats.data) throw new Error(`stats: ${stats.response.status}`)
  const bySol = await client.GET('/api/v2/photos/stats', { params: { query: { group_by: 'sol', rovers: 'perseverance' } } })
  if (!bySol.data) throw new Error(`stats by sol: ${bySol.response.status}`)

  const rovers = await client.GET('/api/v2/rovers')
  const rover = await client.GET('/api/v2/rovers/{slug}', { params: { path: { slug: 'perseverance' } } })
  const cameras = await client.GET('/api/v2/cameras')
  const camera = await client.GET('/api/v2/cameras/{id}', { params: { path: { id: 'NAVCAM' } } })
  const locations = await client.GET('/api/v2/locations', { params: { query: { per_page: 10 } } })
  const location = locations.data?.data[0] ? await client.GET('/api/v2/locations/{id}', { params: { path: { id: locations.data.data[0].id } } }) : undefined
  const panoramas = await client.GET('/api/v2/panoramas')
  await client.GET('/api/v2/panoramas/{id}', { params: { path: { id: 'pano_curiosity_1_1' } } })
  const root = await client.GET('/api/v2')
  const health = await client.GET('/health')
  if (!rover.data || !camera.data || !root.data || !health.data || (location && !location.data)) throw new Error('a resource did not answer')

  // A bad parameter: the error is typed as a problem document listing every bad parameter.
  const bad = await client.GET('/api/v2/photos', { params: { query: { sol: -1, per_page: 0 } } })
  const badParameterNames = (bad.error?.errors ?? []).map((e) => e.parameter)

  return {
    filteredTotal: filtered.data.meta.total_count,
    walkedIds,
    batchFound: batch.data.data.map((p) => p.id),
    batchMissing: batch.data.meta.ids_missing,
    statsGroups: stats.data.meta.returned_count,
    rovers: (rovers.data?.data ?? []).map((r) => r.id),
    cameraRovers: camera.data.data.relationships.rovers.map((r) => r.id),
    locations: locations.data?.meta.total_count ?? -1,
    panoramas: panoramas.data?.meta.total_count ?? -1,
    missingPhotoStatus: missing.response.status,
    badParameterNames,
  }
}
