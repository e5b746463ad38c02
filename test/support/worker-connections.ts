import { readdirSync, readFileSync, readlinkSync } from 'node:fs'

/**
 * Which server process took each of this test process's open connections to a port: read from
 * Linux's socket tables (/proc/net/tcp{,6}: local and remote ports, state, socket inode) and the
 * processes' descriptors (/proc/<pid>/fd -> socket:[inode]). With `WORKERS=N` the kernel hands
 * each new connection to one of the workers sharing the port (SO_REUSEPORT); this says which.
 */
interface TcpEntry {
  local: number
  remote: number
  established: boolean
  inode: string
}

function tcpEntries(): TcpEntry[] {
  const out: TcpEntry[] = []
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = ''
    try {
      text = readFileSync(file, 'utf8')
    } catch {
      continue
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/)
      if (f.length < 10) continue
      out.push({ local: parseInt(f[1]!.split(':')[1]!, 16), remote: parseInt(f[2]!.split(':')[1]!, 16), established: f[3] === '01', inode: f[9]! })
    }
  }
  return out
}

function socketInodes(pid: number | 'self'): Set<string> {
  const out = new Set<string>()
  let fds: string[] = []
  try {
    fds = readdirSync(`/proc/${pid}/fd`)
  } catch {
    return out
  }
  for (const fd of fds) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))
      if (m) out.add(m[1]!)
    } catch {
      // closed meanwhile
    }
  }
  return out
}

/** How many of this process's established connections to `port` each of `pids` holds the other end of. */
export function connectionsByWorker(port: number, pids: number[]): Map<number, number> {
  const entries = tcpEntries().filter((e) => e.established)
  const mine = socketInodes('self')
  const clientPorts = new Set(entries.filter((e) => e.remote === port && mine.has(e.inode)).map((e) => e.local))
  const serverEnds = entries.filter((e) => e.local === port && clientPorts.has(e.remote))
  const counts = new Map<number, number>()
  for (const pid of pids) {
    const held = socketInodes(pid)
    counts.set(pid, serverEnds.filter((e) => held.has(e.inode)).length)
  }
  return counts
}
