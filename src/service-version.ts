import pkg from '../package.json' with { type: 'json' }

/**
 * The service's release (semantic versioning), read from package.json so the OpenAPI document's
 * `info.version`, the API root and `/health` can never disagree with the release that was built.
 * The path prefix `/api/v2` names the interface's major version; this names the release.
 */
export const SERVICE_VERSION: string = pkg.version
