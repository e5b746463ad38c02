import { closeSync, fsync, fsyncSync, linkSync, openSync, readdirSync, statSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { FILES, type Manifest } from '../../src/store/schema'
import { DIGEST_PART, digestFiles, xxh3Hex } from './manifest'

type FileEntry = Manifest['files'][string]

/**
 * The writes of a build's staging folder. First, the manifest's digest of each file, taken from
 * the bytes as they are written (SHA-256 fed chunk by chunk; XXH3 of each `partBytes` of the file,
 * as digestFiles lists them), so the digest stage does not read back what was just written: the
 * read through the page cache cost more than the hashing (an update at 60,000 records: ~0.6 s of
 * the merge's ~2.8 s).
 *
 * `files(dir)` is digestFiles(dir) in every byte: a file this build did not write through a sink
 * (or whose size, device or inode no longer match what was written) is read and hashed as before.
 *
 * And each file's fsync (sink.finish), begun on a worker thread while the build goes on to its
 * next stage (photos.arrow's ~150 ms at 60,000 records, seconds at 1.5 million, spent beside the
 * access paths' sorts); `files(dir)` waits for them all, so the manifest is written, and the
 * folder published, only after every file is on disk.
 */
export class StagingWrites {
  readonly partBytes: number
  readonly #written = new Map<string, { entry: FileEntry; dev: number; ino: number }>()
  readonly #syncs: Array<Promise<void>> = []
  /** One reused buffer gathering a part's bytes when the writer's chunks do not fall on part boundaries. */
  #buffer: Uint8Array | undefined
  #holder: DigestSink | undefined

  constructor(partBytes = DIGEST_PART) {
    this.partBytes = partBytes
  }

  /** A sink for the bytes of `path`, in file order; `finish(fd)` records the file's entry and syncs and closes it. */
  sink(path: string): DigestSink {
    return new DigestSink(this, path)
  }

  /** The manifest's `files` for `dir` (every file but the manifest, sorted by name), once every file finished is on disk. */
  async files(dir: string): Promise<Manifest['files']> {
    await this.settled()
    return this.#digests(dir)
  }

  /** Every fsync begun by sink.finish, done (the first failure thrown). */
  async settled(): Promise<void> {
    const all = this.#syncs.splice(0)
    const results = await Promise.allSettled(all)
    const failed = results.find((r) => r.status === 'rejected')
    if (failed) throw (failed as PromiseRejectedResult).reason
  }

  /**
   * A published file taken into the staging folder unchanged, as a hard link (no bytes written),
   * with its published manifest entry: were it damaged since, the server's check of the new
   * version against that entry refuses it, as it would the published one.
   */
  link(from: string, to: string, entry: FileEntry): void {
    linkSync(from, to)
    this.record(to, entry)
  }

  /** @internal an fsync then close of `fd` on a worker thread */
  syncLater(fd: number, path: string): void {
    const done = new Promise<void>((resolve, reject) =>
      fsync(fd, (e) => {
        try {
          closeSync(fd)
        } catch {
          // Closed or not, an fsync that failed fails the build below.
        }
        if (e) reject(new Error(`${path}: fsync failed (${e.message})`))
        else resolve()
      }),
    )
    // Awaited in settled(); a build that fails before then is not also an unhandled rejection.
    done.catch(() => {})
    this.#syncs.push(done)
  }

  #digests(dir: string): Manifest['files'] {
    const out: Manifest['files'] = {}
    const unknown: string[] = []
    for (const name of readdirSync(dir).sort()) {
      if (name === FILES.manifest) continue
      const path = join(dir, name)
      const st = statSync(path)
      if (!st.isFile()) continue
      const w = this.#written.get(path)
      if (w && w.entry.bytes === st.size && w.dev === st.dev && w.ino === st.ino) out[name] = w.entry
      else unknown.push(name)
    }
    if (unknown.length > 0) {
      // Only those files are read back: the others' digests were taken as they were written.
      const read = digestFiles(dir, this.partBytes, unknown)
      for (const name of unknown) out[name] = read[name]!
      // Names sorted as digestFiles lists them.
      return Object.fromEntries(Object.keys(out).sort().map((n) => [n, out[n]!]))
    }
    return out
  }

  /** @internal the shared part buffer, for one sink at a time (files are written one after the other) */
  partBuffer(sink: DigestSink): Uint8Array {
    if (this.#holder !== undefined && this.#holder !== sink) throw new Error('two files are written through one StagingWrites at once')
    this.#holder = sink
    return (this.#buffer ??= new Uint8Array(this.partBytes))
  }

  /** @internal */
  release(sink: DigestSink): void {
    if (this.#holder === sink) this.#holder = undefined
  }

  /** @internal */
  record(path: string, entry: FileEntry): void {
    const st = statSync(path)
    if (st.size !== entry.bytes) throw new Error(`${path} is ${st.size} bytes, ${entry.bytes} were written`)
    this.#written.set(path, { entry, dev: st.dev, ino: st.ino })
  }
}

export class DigestSink {
  readonly #owner: StagingWrites
  readonly #path: string
  readonly #sha = new Bun.CryptoHasher('sha256')
  readonly #parts: string[] = []
  /** Bytes of the current part gathered in the owner's buffer. */
  #fill = 0
  #bytes = 0

  constructor(owner: StagingWrites, path: string) {
    this.#owner = owner
    this.#path = path
  }

  update(bytes: Uint8Array): void {
    if (bytes.length === 0) return
    this.#sha.update(bytes)
    this.#bytes += bytes.length
    const part = this.#owner.partBytes
    for (let off = 0; off < bytes.length; ) {
      if (this.#fill === 0 && bytes.length - off >= part) {
        // A whole part inside this chunk: hashed where it is.
        this.#parts.push(xxh3Hex(bytes.subarray(off, off + part)))
        off += part
        continue
      }
      const buf = this.#owner.partBuffer(this)
      const n = Math.min(part - this.#fill, bytes.length - off)
      buf.set(bytes.subarray(off, off + n), this.#fill)
      this.#fill += n
      off += n
      if (this.#fill === part) {
        this.#parts.push(xxh3Hex(buf))
        this.#fill = 0
        this.#owner.release(this)
      }
    }
  }

  /** The file's entry recorded, and `fd` (the file, all written) synced and closed on a worker thread (the owner's files() waits for it). */
  finish(fd: number): FileEntry {
    let entry: FileEntry
    try {
      entry = this.close()
    } catch (e) {
      closeSync(fd)
      throw e
    }
    this.#owner.syncLater(fd, this.#path)
    return entry
  }

  /** The file's entry, recorded with its owner (the file must be written, and is synced and closed by the caller). */
  close(): FileEntry {
    if (this.#fill > 0) this.#parts.push(xxh3Hex(this.#owner.partBuffer(this).subarray(0, this.#fill)))
    else if (this.#parts.length === 0) this.#parts.push(xxh3Hex(new Uint8Array(0)))
    this.#fill = 0
    this.#owner.release(this)
    const sha256 = this.#sha.digest('hex')
    const entry: FileEntry = this.#parts.length === 1 ? { bytes: this.#bytes, sha256, xxh3: this.#parts[0]! } : { bytes: this.#bytes, sha256, xxh3_parts: [...this.#parts], xxh3_part_bytes: this.#owner.partBytes }
    this.#owner.record(this.#path, entry)
    return entry
  }
}

/**
 * One file of a build written piece by piece (photos.arrow and the other Arrow files, raw.bin):
 * `put` writes bytes, feeding the digest as they go when the build takes digests. `end` once all
 * is written: synced and closed, on the digests' worker thread when there are digests (the sink
 * owns the descriptor then), else here. `abandon` in a `finally`: a write that failed before
 * `end` closes the file without recording it.
 */
export class StagedFile {
  readonly #fd: number
  readonly #sink: DigestSink | undefined
  #open = true

  constructor(path: string, digests?: StagingWrites) {
    this.#fd = openSync(path, 'w', 0o644)
    this.#sink = digests?.sink(path)
  }

  put(bytes: Uint8Array): void {
    writeAll(this.#fd, bytes)
    this.#sink?.update(bytes)
  }

  end(): void {
    this.#open = false
    if (this.#sink) {
      this.#sink.finish(this.#fd)
      return
    }
    try {
      fsyncSync(this.#fd)
    } finally {
      closeSync(this.#fd)
    }
  }

  abandon(): void {
    if (!this.#open) return
    this.#open = false
    closeSync(this.#fd)
  }
}

/** All of `bytes` to `fd` (writeSync may write less than asked; at most 64 MiB a call). */
export function writeAll(fd: number, bytes: Uint8Array): void {
  for (let off = 0; off < bytes.length; ) off += writeSync(fd, bytes, off, Math.min(1 << 26, bytes.length - off))
}
