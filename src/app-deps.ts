import type { Config } from './config'
import type { Logger } from './log'
import type { StoreHolder } from './store/store-holder'
import type { KeyDirectory } from './keys/key-directory'
import type { CounterStore } from './limits/counter-store'
import type { Mailer } from './mail/mailer'

/** Everything the assembled app needs, built once by src/server.ts (or a test). */
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
}
