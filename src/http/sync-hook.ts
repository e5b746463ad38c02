/**
 * A lifecycle hook Elysia must call without awaiting it.
 *
 * Elysia 1.4 guesses from a function's source text whether it is async (compose.mjs isAsync:
 * /(?:return|=>)\s?\S+\(|a(?:sync|wait)/, so any `return f(x)` counts), and Bun's transpiler
 * folds `const r = f(x); return r` back into `return f(x)`. One hook guessed async makes the whole
 * request function async (an await per hook per request) and an error hook guessed async makes
 * every route handler async. Elysia takes the answer from a hook container when it carries one,
 * so the hooks declare it: `isAsync: false` (they never return a Promise) and `hasReturn: true`
 * (their return value must be used). Sucrose still reads `fn` itself to see what the hook uses.
 * Route handlers cannot be declared this way: on hot routes they are written `=> new JsonBody(...)`,
 * which the guess reads as synchronous. test/sync-pipeline.test.ts checks the effect.
 * Why it matters: before, every request went through an async request function, and a cached
 * list answer through an awaited handler too; with this and the per-URL memos (./url-facts.ts)
 * a 304 through app.handle went from ~21 to ~7 µs and a cached 18 KB list from ~100 to ~32 µs
 * (in-process microbench on the synthetic index).
 */
export function syncHook<F extends (...args: never[]) => unknown>(fn: F): F {
  return { fn, isAsync: false, hasReturn: true } as unknown as F
}
