import { readFileSync } from 'node:fs'

/**
 * Tells the running server to load the new index: SIGHUP to the pid in a pid file (app/server.ts
 * reloads on SIGHUP). SIGHUP's default action ends a process, so the pid is signalled only when it
 * is alive and its command line runs app/server.ts: a stale pid file that now names some other
 * process is reported, never signalled.
 *
 * Without a pid file nothing is sent: a server started with WATCH_INDEX (on by default) notices
 * the builder's rename of `<INDEX_DIR>/current` by itself.
 */
export type SignalOutcome = { sent: true; pid: number } | { sent: false; why: string }

export function signalServer(pidFile: string | undefined): SignalOutcome {
  if (!pidFile) return { sent: false, why: 'no pid file given: a server with WATCH_INDEX on reloads when `current` changes' }
  let pid: number
  try {
    const text = readFileSync(pidFile, 'utf8').trim()
    if (!/^\d{1,9}$/.test(text)) return { sent: false, why: `${pidFile} does not hold a pid` }
    pid = Number(text)
  } catch (e) {
    return { sent: false, why: `cannot read ${pidFile}: ${(e as Error).message}` }
  }
  if (pid <= 1 || pid === process.pid) return { sent: false, why: `${pidFile} names pid ${pid}, not a server` }
  let cmdline: string
  try {
    cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ')
  } catch {
    return { sent: false, why: `no process ${pid} (from ${pidFile}) is running` }
  }
  if (!/(^|[\s/])server\.ts(\s|$)/.test(cmdline)) return { sent: false, why: `process ${pid} (from ${pidFile}) is not the server (${cmdline.slice(0, 80)})` }
  try {
    process.kill(pid, 'SIGHUP')
    return { sent: true, pid }
  } catch (e) {
    return { sent: false, why: `cannot signal ${pid}: ${(e as Error).message}` }
  }
}
