/**
 * The import rules of the tree (README.md, "Layout"), checked by test/import-graph.test.ts with
 * dependency-cruiser over the runtime folders. The data's journey reads left to right:
 *   index-builder/ -> (Arrow files) -> src/ (the core, no HTTP) <- plugins/ <- app/ (composition root)
 * Each layer may import the ones it stands on, never the ones above it.
 */
const RUNTIME = '^(app|src|plugins|index-builder)/'
const TOOLING = '^(bench|test|scripts|tools|clients)/'

/**
 * The query engine by stage (docs/ARCHITECTURE.md): each folder of src/query/ and the folders it
 * may import besides its own. Read top to bottom, a stage imports only stages below it: the
 * answers tie parameters, the row engine and rendering together; the row engine
 * (page -> order -> plan -> scan) sees typed values and row numbers, never query text, JSON or
 * the cache. Nothing in a stage imports the face (index.ts, warm-snapshot.ts) or a capability
 * folder built on the stages (those import the stages, never the other way round).
 */
const QUERY_STAGES = {
  answer: ['render', 'bytes', 'params', 'page', 'order', 'plan', 'scan'],
  export: ['render', 'bytes', 'params', 'page', 'order', 'plan', 'scan'],
  stats: ['render', 'bytes', 'params', 'page', 'order', 'plan', 'scan'],
  cache: ['render'],
  render: ['bytes', 'params'],
  bytes: [],
  params: ['order', 'scan'],
  page: ['order', 'plan', 'scan'],
  order: ['plan'],
  plan: ['scan'],
  scan: [],
}
const stageRules = Object.entries(QUERY_STAGES).map(([stage, below]) => ({
  name: `query-${stage}-imports-only-lower-stages`,
  comment: `src/query/${stage}/ may import ${below.length ? below.map((b) => `${b}/`).join(', ') : 'no other stage'} of src/query/ (and the core outside it).`,
  severity: 'error',
  from: { path: `^src/query/${stage}/` },
  to: { path: '^src/query/', pathNot: `^src/query/(${[stage, ...below].join('|')})/` },
}))

module.exports = {
  forbidden: [
    {
      name: 'core-imports-no-plugin',
      comment: 'src/ is the core that plugins are built on: it never imports plugins/ (the dependency points one way).',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^plugins/' },
    },
    {
      name: 'nothing-imports-the-composition-root',
      comment: 'app/ assembles everything; nothing it assembles may depend on it.',
      severity: 'error',
      from: { path: '^(src|plugins|index-builder)/' },
      to: { path: '^app/' },
    },
    {
      name: 'plugin-imports-no-other-plugins-internals',
      comment: "A plugin may use another plugin only through its factory (index.ts); shared logic belongs in src/.",
      severity: 'error',
      from: { path: '^plugins/([^/]+)/' },
      to: { path: '^plugins/', pathNot: ['^plugins/$1/', '^plugins/[^/]+/index\\.ts$'] },
    },
    {
      name: 'server-imports-no-builder',
      comment: 'index-builder/ is offline only: the server shares the index schema through src/store and src/catalog.',
      severity: 'error',
      from: { path: '^(app|src|plugins)/' },
      to: { path: '^index-builder/' },
    },
    {
      name: 'builder-imports-no-http',
      comment: 'The builder writes what src/ reads: it may import the schema and catalogue in src/, never the HTTP layers.',
      severity: 'error',
      from: { path: '^index-builder/' },
      to: { path: '^(app|plugins)/' },
    },
    {
      name: 'runtime-imports-no-tooling',
      comment: 'Tests, benches, scripts and tools import the runtime, not the other way round.',
      severity: 'error',
      from: { path: RUNTIME },
      to: { path: '^(test|bench|scripts|tools|clients|deploy)/' },
    },
    {
      name: 'no-file-cycle',
      comment: 'No two files import each other, directly or through others (type-only imports included: a cycle of types is still one design).',
      severity: 'error',
      from: { path: RUNTIME },
      to: { circular: true },
    },
    {
      name: 'no-file-cycle-in-tooling',
      comment: 'Benches, tests, scripts and tools hold no import cycle either (the fixture trees under test/fixtures break rules on purpose).',
      severity: 'error',
      from: { path: TOOLING, pathNot: '^test/fixtures/' },
      to: { circular: true },
    },
    {
      name: 'tooling-import-resolves',
      comment: 'A bench, test or script import the resolver cannot find is an error: a moved or missing file is never skipped.',
      severity: 'error',
      from: { path: TOOLING, pathNot: '^test/fixtures/' },
      to: { couldNotResolve: true },
    },
    ...stageRules,
    {
      name: 'query-imports-no-answering-layer',
      comment: 'The query engine is built on by src/resources/, src/v1/ and the answering half of src/http/; it imports only the leaf helpers of src/http/ (problems, links, accept-ranges).',
      severity: 'error',
      from: { path: '^src/query/' },
      to: { path: '^src/(resources|v1|http)/', pathNot: '^src/http/(problems|links|accept-ranges)\\.ts$' },
    },
    {
      name: 'runtime-imports-no-dev-dependency',
      comment: 'What the server or the builder imports must be installed in production (dependencies, not devDependencies).',
      severity: 'error',
      from: { path: RUNTIME },
      to: { dependencyTypes: ['npm-dev'] },
    },
    {
      name: 'every-import-resolves',
      comment: 'An import the resolver cannot find is an error, not an edge to skip.',
      severity: 'error',
      from: { path: RUNTIME },
      to: { couldNotResolve: true },
    },
  ],
  options: {
    // Type-only imports count: they are dependencies of the design even when erased at run time.
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    // Package "exports" maps (with their wildcard subpaths) resolve as Bun resolves them.
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js', '.mjs', '.json'], exportsFields: ['exports'], conditionNames: ['import', 'bun', 'node', 'default'] },
    moduleSystems: ['es6', 'cjs'],
  },
}
