// The generated types live in ./src/schema.ts (the package's source); this path keeps
// `import type { paths } from './clients/typescript/schema'` working from the repository root.
export type * from './src/schema'
