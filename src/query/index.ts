/**
 * The photo query engine's public face: pure render functions from a store snapshot and the
 * request's parameters to JSON text (meta.timestamp as TIMESTAMP_SLOT, see envelope.ts), and for
 * the photo answers the same JSON as UTF-8 bytes (the *Bytes functions: no JS string made). No
 * cache here (the bench measures these); plugins/photos adds the response cache.
 * Errors are thrown as ProblemError (400 validation, 404 not found).
 */
export { listPhotos } from './answer/list-photos'
export { getPhoto } from './answer/get-photo'
export { photoStats } from './stats/photo-stats'
export { batchPhotos } from './answer/batch-photos'
export { listLocations } from './answer/locations-list'
export { listPanoramas } from './answer/panoramas-list'
export { relatedPhotos } from './answer/related-photos'
export { fillTimestamp, TIMESTAMP_SLOT } from './render/envelope'
export { ResponseCache, responseCacheFor } from './cache/response-cache'
