import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { FeedRover } from './feed-spec'
import type { Validators } from './polite-client'
import { writeFileAtomic } from './feed-store'

/**
 * What the fetcher remembers between runs, per rover, in `<FEED_DIR>/.state/<rover>.json`
 * (rewritten atomically after every sol):
 * - `run`: the current run's request and range, and the sols it has completed. A run that did
 *   not finish (killed, or some sols failed) is resumed by the next run with the same request:
 *   its completed sols are not fetched again.
 * - `sols`: per saved sol, the HTTP validators of each page, for conditional requests next time.
 */
export interface RunState {
  /** The request as given (`sols=10..20`, `since-sols=7`): a resume needs the same one. */
  request: string
  solMin: number
  solMax: number
  started: string
  finished?: string
  done: number[]
}

export interface SolState {
  pages: Validators[]
  images: number
  fetchedAt: string
}

export interface FetchState {
  version: 1
  rover: FeedRover
  run?: RunState
  sols: Record<string, SolState>
}

export const statePath = (feedDir: string, rover: FeedRover) => join(feedDir, '.state', `${rover}.json`)
export const lockPath = (feedDir: string, rover: FeedRover) => join(feedDir, '.state', `${rover}.lock`)

/** The saved state, or a fresh one when there is none or it does not parse (the pages on disk stay valid either way). */
export function loadState(feedDir: string, rover: FeedRover): FetchState {
  const path = statePath(feedDir, rover)
  if (existsSync(path)) {
    try {
      const s = JSON.parse(readFileSync(path, 'utf8')) as FetchState
      if (s && s.version === 1 && s.rover === rover && s.sols && typeof s.sols === 'object') return s
    } catch {
      /* unreadable: start over; at worst every sol is fetched again, unconditionally */
    }
  }
  return { version: 1, rover, sols: {} }
}

export function saveState(feedDir: string, state: FetchState): void {
  writeFileAtomic(statePath(feedDir, state.rover), JSON.stringify(state))
}
