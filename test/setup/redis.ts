import { afterAll, beforeAll, beforeEach } from 'bun:test'
import { RedisClient, type Subprocess } from 'bun'

/**
 * A real `redis-server` on a free loopback port, for the Redis counter-store tests.
 * `.ci/run` installs redis-server (apt); where the binary is absent, startRedis() returns
 * undefined after a clear console message and the caller skips its Redis tests.
 */
export interface RedisServer {
  url: string
  port: number
  /** Kill the server (SIGKILL: as if the machine went away). */
  kill(): Promise<void>
  /** Freeze / thaw the server (SIGSTOP / SIGCONT): connections stay open, commands hang. */
  pause(): void
  resume(): void
  /** Start it again on the same port (empty unless started with persistDir). */
  restart(): Promise<void>
  stop(): Promise<void>
}

export function redisBinary(): string | undefined {
  return Bun.which('redis-server') ?? (Bun.file('/usr/bin/redis-server').size > 0 ? '/usr/bin/redis-server' : undefined)
}

async function freePort(): Promise<number> {
  const probe = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
  const port = probe.port
  probe.stop(true)
  return port
}

async function waitReady(port: number, ms = 5_000): Promise<void> {
  const until = Date.now() + ms
  while (Date.now() < until) {
    try {
      const ok = await new Promise<boolean>((resolve) => {
        Bun.connect({
          hostname: '127.0.0.1',
          port,
          socket: {
            open(s) {
              s.write('PING\r\n')
            },
            data(s, d) {
              resolve(d.toString().startsWith('+PONG'))
              s.end()
            },
            error() {
              resolve(false)
            },
            connectError() {
              resolve(false)
            },
          },
        }).catch(() => resolve(false))
      })
      if (ok) return
    } catch {
      /* not yet */
    }
    await Bun.sleep(50)
  }
  throw new Error(`redis-server on port ${port} did not answer PING within ${ms} ms`)
}

/**
 * `persistDir`: keep the data across kill and restart (append-only file, fsync on every write),
 * as a production Redis does; without it the server keeps nothing.
 */
export async function startRedis(opts: { persistDir?: string } = {}): Promise<RedisServer | undefined> {
  const bin = redisBinary()
  if (!bin) {
    console.warn('SKIPPED: redis-server is not installed (apt-get install -y redis-server); the Redis rate-limit tests do not run.')
    return undefined
  }
  const port = await freePort()
  let proc: Subprocess | undefined
  const spawn = async () => {
    const persistence = opts.persistDir ? ['--appendonly', 'yes', '--appendfsync', 'always', '--dir', opts.persistDir] : ['--appendonly', 'no']
    proc = Bun.spawn([bin, '--port', String(port), '--bind', '127.0.0.1', '--save', '', ...persistence, '--protected-mode', 'yes'], {
      stdout: 'ignore',
      stderr: 'ignore',
    })
    await waitReady(port)
  }
  await spawn()
  const kill = async () => {
    if (!proc) return
    proc.kill('SIGKILL')
    await proc.exited
    proc = undefined
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    kill,
    pause: () => void proc?.kill('SIGSTOP'),
    resume: () => void proc?.kill('SIGCONT'),
    restart: spawn,
    async stop() {
      if (!proc) return
      proc.kill('SIGTERM')
      await proc.exited
      proc = undefined
    },
  }
}

/**
 * startRedis() for one test file: what its tests open against the server (counter stores, apps)
 * is handed to `closeAfter` and closed after the file's tests, before the server stops.
 */
export async function redisForFile(): Promise<{ redis: RedisServer | undefined; closeAfter: <T extends { close(): unknown }>(x: T) => T }> {
  const redis = await startRedis()
  const owned: Array<{ close(): unknown }> = []
  afterAll(async () => {
    for (const x of owned) await x.close()
    await redis?.stop()
  })
  return { redis, closeAfter: (x) => (owned.push(x), x) }
}

/**
 * A plain client of the server for the enclosing describe: connected before its tests, the
 * server emptied (FLUSHALL) before each one, closed after them.
 */
export function flushedClient(server: () => RedisServer): { send(command: string, args: string[]): Promise<unknown> } {
  let client: RedisClient
  beforeAll(async () => {
    client = new RedisClient(server().url)
    await client.connect()
  })
  afterAll(() => client.close())
  beforeEach(async () => {
    await client.send('FLUSHALL', [])
  })
  return { send: (command, args) => client.send(command, args) }
}
