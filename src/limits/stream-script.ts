/**
 * The Redis side of the shared count of open photo streams (./shared-stream-count.ts), as Lua
 * scripts: Redis runs a script to the end before any other command, so two workers or instances
 * asking for a key's last place at once cannot both get it.
 *
 * One sorted set per key record (`rl:{id}:streams`, the hash tag of the key's other counters):
 * a member per open stream (`<instance>:<n>`), scored by the time its hold lapses (ms, Redis's
 * own clock: one clock for every instance, whatever theirs say). The instance holding a stream
 * pushes that time forward every tick; an instance that died stops doing so, and its members
 * lapse `ttl` ms after its last renewal at the latest. Lapsed members are pruned before a place
 * is counted, and the set itself expires `ttl` ms after its last write.
 */

/** Redis's clock in ms (TIME: seconds and microseconds; a script may write after it since Redis 5, which replicates a script's effects). */
const NOW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
`

/**
 * Take one place. ARGV: limit, member, ttl ms. Returns {1 taken | 0 refused, members now held
 * (live, this one included when taken)}.
 */
export const OPEN_STREAM_SCRIPT = `${NOW}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local n = redis.call('ZCARD', KEYS[1])
if n >= tonumber(ARGV[1]) then return {0, n} end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return {1, n + 1}
`

/**
 * Renew the holds of one instance's open streams of one key. ARGV: ttl ms, then the members.
 * A member that lapsed meanwhile (Redis unreachable for longer than ttl, or restarted without
 * its data) is added back: an open stream is counted again within a tick of Redis answering.
 * Returns the members renewed.
 */
export const RENEW_STREAMS_SCRIPT = `${NOW}
local at = now + tonumber(ARGV[1])
for i = 2, #ARGV do redis.call('ZADD', KEYS[1], at, ARGV[i]) end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return #ARGV - 1
`

/** The sorted set of key record `id`'s open streams. */
export function streamsKey(id: number): string {
  return `rl:{${id}}:streams`
}
