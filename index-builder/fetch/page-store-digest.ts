import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'

/**
 * What a page store (FEED_DIR) holds, as one digest: every saved page's path, size and
 * modification time, in order. The fetcher rewrites a sol only when its pages differ (and then
 * by swapping the sol's folder in whole), so this changes whenever the pages do, and reading it
 * costs one `stat` a page, never the pages themselves. An index built from a page store records
 * it (manifest `page_store`); `npm run update` rebuilds whenever the store's digest is not the
 * one the published index was built from.
 */
export interface PageStoreDigest {
  digest: string
  pages: number
}

const SOL_DIR = /^sol-\d{5}$/
const PAGE_FILE = /^page-\d{3}\.json$/

export function pageStoreDigest(feedDir: string): PageStoreDigest {
  const hash = new Bun.CryptoHasher('sha256')
  let pages = 0
  if (existsSync(feedDir)) {
    // Dot folders (.staging, .state) are the fetcher's own, never read by the builder.
    for (const rover of readdirSync(feedDir).filter((n) => !n.startsWith('.')).sort()) {
      const roverDir = join(feedDir, rover)
      if (!statSync(roverDir).isDirectory()) continue
      for (const sol of readdirSync(roverDir).filter((n) => SOL_DIR.test(n)).sort()) {
        for (const page of readdirSync(join(roverDir, sol)).filter((n) => PAGE_FILE.test(n)).sort()) {
          const st = statSync(join(roverDir, sol, page), { bigint: true })
          hash.update(`${rover}/${sol}/${page} ${st.size} ${st.mtimeNs}\n`)
          pages++
        }
      }
    }
  }
  return { digest: hash.digest('hex').slice(0, 32), pages }
}
