import { expect, test } from 'bun:test'
import { rssBytes, treeRssBytes } from '../bench/lib/tree-rss'

/** The build probe's peak RSS counts children running at the same time: their memory adds up. */
test('the RSS of a process tree includes every running child, so two 200 MiB children add 400 MiB', async () => {
  const before = treeRssBytes(process.pid)
  expect(before).toBeGreaterThan(0)
  const kids = [0, 1].map(() =>
    Bun.spawn([process.execPath, '-e', 'const a = new Uint8Array(200 * 2 ** 20); a.fill(1); console.log("ready"); await Bun.sleep(5000); console.log(a[7])'], { stdout: 'pipe' }),
  )
  try {
    for (const k of kids) await k.stdout.getReader().read() // each child has touched its 200 MiB
    // Against this process's own RSS read at the same moment, not the tree's before: the test
    // runner's heap may shrink meanwhile by more than the margin (a collection between the reads).
    const during = treeRssBytes(process.pid)
    const own = rssBytes(process.pid)
    expect(during - own).toBeGreaterThan(2 * 190 * 2 ** 20)
  } finally {
    for (const k of kids) k.kill()
  }
})
