import type { Config } from './config'
import type { Logger } from './log'
import type { StoreHolder } from './store/store-holder'
import type { KeyDirectory } from './keys/key-directory'
import type { CounterStore } from './limits/counter-store'
import type { RouteDocs } from './http/route-docs'
import type { EarlyAnswers } from './http/early-answers'
import type { Mailer } from './mail/mailer'

/** Everything the assembled app needs, built once by app/server.ts (or a test). */
export interface AppDeps {
  config: Config
  stores: StoreHolder
  /** The key store (SQLite or PostgreSQL, src/keys/key-directory.ts). */
  keys: KeyDirectory
  limits: CounterStore
  log: Logger
  /** Sends the dashboard's sign-in links (default: the development transport, which writes them to stdout). */
  mailer?: Mailer
  /** Clock of the rate-limit windows, ms since the epoch (default Date.now; tests inject one). */
  clock?: () => number
  /** Where access-log lines go (default: stdout); tests collect them. */
  accessLog?: (line: string) => void
}

/**
 * What plugins get from createApp: the app's dependencies plus its own route declarations
 * (src/http/route-docs.ts), where each plugin declares the routes it adds and whether they need a key.
 */
export interface PluginDeps extends AppDeps {
  routes: RouteDocs
  /** Revalidations answered at the edge (src/http/early-answers.ts); gates register there. Absent: none. */
  early?: EarlyAnswers
  /**
   * The address of the peer that sent `request` (Bun's requestIP on the app's server), or
   * undefined when the app is not serving a socket (app.handle). Asked only when needed (a
   * refused key): a hook that reads Elysia's `server` makes Elysia define that property on
   * every request's context, for every route.
   */
  peer?: (request: Request) => string | undefined
  /** The port the app's server listens on (PORT=0 picks one), or undefined before it listens. */
  port?: () => number | undefined
}
