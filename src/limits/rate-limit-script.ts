/**
 * The one atomic decision of the Redis counter store, as a Lua script (Redis runs a script to the
 * end before any other command, so concurrent instances can never both take the last unit).
 *
 * KEYS[1] hour counter, KEYS[2] day counter, KEYS[3] in-flight sorted set (member = request token,
 *         score = start ms). The three share the hash tag `{id}`, so they live in one cluster slot.
 * ARGV    hourly, daily, concurrent limits; now ms; stale ms; token; hour ttl ms; day ttl ms.
 * Returns {code, hourCount, dayCount}: code 0 admitted (counted, slot taken), 1 hourly, 2 daily,
 *         3 concurrent (refused, nothing counted).
 *
 * Windows expire by themselves: each counter gets a TTL to the end of its window when created.
 * In-flight slots older than `stale` ms are purged first, so the slots of an instance that died
 * mid-request do not leak; the set itself expires when no request touches it for `stale` ms.
 */
export const RATE_LIMIT_SCRIPT = `
local hourly = tonumber(ARGV[1])
local daily = tonumber(ARGV[2])
local concurrent = tonumber(ARGV[3])
local now = tonumber(ARGV[4])
local stale = tonumber(ARGV[5])
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now - stale)
local h = tonumber(redis.call('GET', KEYS[1]) or '0')
local d = tonumber(redis.call('GET', KEYS[2]) or '0')
if d >= daily then return {2, h, d} end
if h >= hourly then return {1, h, d} end
if redis.call('ZCARD', KEYS[3]) >= concurrent then return {3, h, d} end
h = redis.call('INCR', KEYS[1])
if h == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[7]) end
d = redis.call('INCR', KEYS[2])
if d == 1 then redis.call('PEXPIRE', KEYS[2], ARGV[8]) end
redis.call('ZADD', KEYS[3], now, ARGV[6])
redis.call('PEXPIRE', KEYS[3], stale)
return {0, h, d}
`

/**
 * Charges N more calls at once (CounterStore.charge): all or nothing, so two instances can never
 * both spend the last units. KEYS[1] hour, KEYS[2] day counter; ARGV units, hourly, daily,
 * hour ttl ms, day ttl ms. Returns {code, hourCount, dayCount}: 0 charged, 1 hourly, 2 daily.
 */
export const CHARGE_SCRIPT = `
local n = tonumber(ARGV[1])
local h = tonumber(redis.call('GET', KEYS[1]) or '0')
local d = tonumber(redis.call('GET', KEYS[2]) or '0')
if d + n > tonumber(ARGV[3]) then return {2, h, d} end
if h + n > tonumber(ARGV[2]) then return {1, h, d} end
if n == 0 then return {0, h, d} end
h = redis.call('INCRBY', KEYS[1], n)
if h == n then redis.call('PEXPIRE', KEYS[1], ARGV[4]) end
d = redis.call('INCRBY', KEYS[2], n)
if d == n then redis.call('PEXPIRE', KEYS[2], ARGV[5]) end
return {0, h, d}
`

export const REFUSAL_CODES = { 1: 'hourly', 2: 'daily', 3: 'concurrent' } as const

/** Counter key names of one key record for the windows starting at hourStart / dayStart (ms). */
export function counterKeys(id: number, hourStart: number, dayStart: number): [string, string, string] {
  const tag = `rl:{${id}}`
  return [`${tag}:h:${hourStart}`, `${tag}:d:${dayStart}`, `${tag}:inflight`]
}
