/**
 * The two atomic steps of the leased Redis counter store, as Lua scripts (Redis runs a script to
 * the end before any other command, so two instances can never both be granted the last unit).
 *
 * Keys of one API key record, sharing the hash tag `{id}` (one cluster slot):
 *   KEYS[1] hour counter  — units granted in this UTC hour, to every instance together
 *   KEYS[2] day counter   — units granted in this UTC day
 *   KEYS[3] slot grants   — hash: instance -> in-flight slots it holds
 *   KEYS[4] heartbeats    — sorted set: instance -> last time it spoke (ms)
 *
 * A unit is one admitted call, counted in both windows the moment it is granted, before the
 * instance admits the call: the counters are an upper bound of what was admitted, so the sum of
 * what every instance admits can never exceed a limit. Slot grants of an instance that stopped
 * speaking for `stale` ms (it died) are dropped before anything is granted.
 */

/**
 * Grant up to `want units` units and `want slots` in-flight slots to one instance, and record its
 * heartbeat. ARGV: hourly, daily, concurrent, want units, want slots, now ms, stale ms, instance,
 * hour ttl ms, day ttl ms. Returns {units granted, slots granted, hour total, day total, slots
 * this instance now holds}.
 */
export const LEASE_SCRIPT = `
local now = tonumber(ARGV[6])
local stale = tonumber(ARGV[7])
local dead = redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', now - stale)
for i = 1, #dead do redis.call('HDEL', KEYS[3], dead[i]) end
if #dead > 0 then redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', now - stale) end
local h = tonumber(redis.call('GET', KEYS[1]) or '0')
local d = tonumber(redis.call('GET', KEYS[2]) or '0')
local units = math.min(tonumber(ARGV[4]), tonumber(ARGV[1]) - h, tonumber(ARGV[2]) - d)
if units > 0 then
  h = redis.call('INCRBY', KEYS[1], units)
  redis.call('PEXPIRE', KEYS[1], ARGV[9])
  d = redis.call('INCRBY', KEYS[2], units)
  redis.call('PEXPIRE', KEYS[2], ARGV[10])
else
  units = 0
end
local slots = 0
local want = tonumber(ARGV[5])
if want > 0 then
  local held = 0
  local grants = redis.call('HVALS', KEYS[3])
  for i = 1, #grants do held = held + tonumber(grants[i]) end
  slots = math.min(want, tonumber(ARGV[3]) - held)
  if slots > 0 then redis.call('HINCRBY', KEYS[3], ARGV[8], slots) else slots = 0 end
end
local mine = tonumber(redis.call('HGET', KEYS[3], ARGV[8]) or '0')
if mine > 0 then
  redis.call('ZADD', KEYS[4], now, ARGV[8])
  redis.call('PEXPIRE', KEYS[3], stale * 4)
  redis.call('PEXPIRE', KEYS[4], stale * 4)
end
return {units, slots, h, d, mine}
`

/**
 * Give back what an instance holds and will not use: `hour units` to the hour counter, `day units`
 * to the day counter (both only down to 0: a counter that was lost is not made negative), `slots`
 * in-flight slots; records the heartbeat while the instance still holds slots. ARGV: hour units,
 * day units, slots, instance, now ms, stale ms. Returns the slots this instance still holds.
 */
export const RETURN_SCRIPT = `
local function giveBack(key, n)
  if n <= 0 then return end
  local v = tonumber(redis.call('GET', key) or '0')
  if v <= 0 then return end
  redis.call('SET', key, math.max(0, v - n), 'KEEPTTL')
end
giveBack(KEYS[1], tonumber(ARGV[1]))
giveBack(KEYS[2], tonumber(ARGV[2]))
local mine = tonumber(redis.call('HGET', KEYS[3], ARGV[4]) or '0')
local back = tonumber(ARGV[3])
if back > 0 and mine > 0 then
  mine = redis.call('HINCRBY', KEYS[3], ARGV[4], -math.min(back, mine))
end
if mine <= 0 then
  redis.call('HDEL', KEYS[3], ARGV[4])
  redis.call('ZREM', KEYS[4], ARGV[4])
  return 0
end
redis.call('ZADD', KEYS[4], ARGV[5], ARGV[4])
redis.call('PEXPIRE', KEYS[3], tonumber(ARGV[6]) * 4)
redis.call('PEXPIRE', KEYS[4], tonumber(ARGV[6]) * 4)
return mine
`

/** Key names of one key record's budget for the windows starting at hourStart / dayStart (ms). */
export function leaseKeys(id: number, hourStart: number, dayStart: number): [string, string, string, string] {
  const tag = `rl:{${id}}`
  return [`${tag}:h:${hourStart}`, `${tag}:d:${dayStart}`, `${tag}:slots`, `${tag}:beats`]
}
