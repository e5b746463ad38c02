import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * `npm start` is quiet: the start-up output ends with the one-line catalogue summary and
 * `listening on http://…`, with no build diagnostics and no info-level JSON lines; a first build
 * under `--brief` says it builds and that it built, in one line each.
 */
const ROOT = join(import.meta.dir, '..')
const work = mkdtempSync(join(tmpdir(), 'mv-start-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))

/** The output lines of `npm start` up to its `listening on` line (npm's own `> script` echo left out). */
async function startOutput(env: Record<string, string>): Promise<{ lines: string[]; url: string }> {
  // setsid: npm, its shell and the server share one process group, stopped together below.
  const proc = Bun.spawn(['setsid', 'npm', 'start'], { cwd: ROOT, env: { ...process.env, ...env }, stdout: 'pipe', stderr: 'pipe' })
  const lines: string[] = []
  const decoder = new TextDecoder()
  let buf = ''
  try {
    const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader()
    const deadline = Date.now() + 120_000
    while (!lines.some((l) => l.startsWith('listening on ')) && Date.now() < deadline) {
      const { value, done } = await reader.read()
      if (done) break
      buf += decoder.decode(value, { stream: true })
      let nl: number
      while ((nl = buf.indexOf('\n')) >= 0) {
        lines.push(buf.slice(0, nl))
        buf = buf.slice(nl + 1)
      }
    }
    reader.releaseLock()
  } finally {
    try {
      process.kill(-proc.pid, 'SIGTERM')
    } catch {
      proc.kill('SIGTERM')
    }
    await proc.exited
  }
  const shown = lines.filter((l) => l.trim() !== '' && !l.startsWith('> '))
  const url = shown.find((l) => l.startsWith('listening on '))?.slice('listening on '.length) ?? ''
  return { lines: shown, url }
}

describe('npm start', () => {
  test('ends with the catalogue summary, which says the bundled index is a sample, and `listening on http://localhost:PORT`, and writes no info-level line before them', async () => {
    const { lines, url } = await startOutput({ INDEX_DIR: process.env.INDEX_DIR!, KEYS_DB: join(work, 'keys.sqlite'), PORT: '0' })
    expect(url).toMatch(/^http:\/\/localhost:\d+$/)
    const manifest = await Bun.file(join(process.env.INDEX_DIR!, 'current', 'manifest.json')).json()
    const photos = manifest.rows.photos.toLocaleString('en-US')
    expect(lines.at(-2)).toStartWith(`catalogue: ${photos} photos (curiosity `)
    // The bundled records are a sample of NASA's catalogue, and the line says so (as /health does).
    expect(lines.at(-2)).toContain(`index ${manifest.version} (real, a sample: \`npm run fetch -- --all\` mirrors the rest)`)
    expect(lines.at(-1)).toBe(`listening on ${url}`)
    expect(lines.filter((l) => l.includes('"level":"info"'))).toEqual([])
    expect(lines.join('\n')).not.toContain('already at')
  }, 180_000)

  test('a first build under --brief prints one line before and one after, not the full summary (no measured errors, no source table)', () => {
    const out = join(work, 'brief-index')
    const source = join(ROOT, '../shared/data/raw/elbi3__Mars-Rover-Photo-Journal/spiritSol1.json.gz')
    const r = Bun.spawnSync([process.execPath, 'index-builder/cli.ts', '--if-missing', '--brief', '--out', out, '--only-sources', source], { cwd: ROOT, stdout: 'pipe', stderr: 'pipe' })
    expect(r.exitCode).toBe(0)
    const lines = r.stdout.toString().trim().split('\n')
    expect(lines.length).toBe(2)
    expect(lines[0]).toStartWith(`building the index into ${out}`)
    expect(lines[1]).toMatch(/^built index [0-9a-f]{16} in \d+\.\d s /)
    expect(r.stdout.toString()).not.toContain('median |err|')
    // Once built, --if-missing --brief prints nothing at all.
    const again = Bun.spawnSync([process.execPath, 'index-builder/cli.ts', '--if-missing', '--brief', '--out', out, '--only-sources', source], { cwd: ROOT, stdout: 'pipe', stderr: 'pipe' })
    expect(again.exitCode).toBe(0)
    expect(again.stdout.toString()).toBe('')
  }, 120_000)
})
