/**
 * The OpenAPI tools the contract tests run (redocly lint, openapi-typescript, tsc 5, ajv) live in
 * tools/openapi with their own package.json and lock: openapi-typescript needs TypeScript 5
 * (test/setup/tool-folder.ts installs them on first use).
 */
import { toolFolder } from './tool-folder'

const OPENAPI = toolFolder('openapi', ['.bin/openapi-typescript', '.bin/redocly', '.bin/tsc', 'ajv/dist/2020.js', 'ajv-formats/package.json', 'openapi-fetch/package.json'])

export const TOOLS = OPENAPI.dir
export const toolBin = OPENAPI.bin
export const ensureOpenApiTools = OPENAPI.ensure
