import { writeSync } from 'node:fs'

/**
 * Lines for stdout (the access log), written in batches: one write per turn of the event loop
 * (setImmediate) or per BATCH_CHARS, instead of one write system call per request, which cost
 * more than the rest of the gatekeeping of a cached answer together. A line waits at most until
 * the current turn ends; whatever is still buffered when the process exits is written
 * synchronously on 'exit', so a normal stop or process.exit() loses nothing. One buffer for the
 * process (there is one stdout), shared by every app in it, so lines never interleave mid-line.
 */
const BATCH_CHARS = 64 * 1024

let pending: string[] = []
let chars = 0
let scheduled = false
let hooked = false

function flush(): void {
  scheduled = false
  if (pending.length === 0) return
  const text = pending.join('')
  pending = []
  chars = 0
  process.stdout.write(text)
}

function flushAtExit(): void {
  if (pending.length === 0) return
  const text = pending.join('')
  pending = []
  chars = 0
  try {
    writeSync(1, text)
  } catch {
    /* stdout gone: nothing left to write to */
  }
}

/** Queues one line (with its newline) for stdout. */
export function writeStdoutLine(line: string): void {
  if (!hooked) {
    hooked = true
    process.once('exit', flushAtExit)
  }
  pending.push(line)
  chars += line.length
  if (chars >= BATCH_CHARS) return flush()
  if (!scheduled) {
    scheduled = true
    setImmediate(flush)
  }
}
