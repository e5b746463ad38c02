import type { Config } from '../config'
import type { Logger } from '../log'
import type { CounterStore } from './counter-store'
import { MemoryCounterStore } from './memory-counter-store'
import { RedisCounterStore } from './redis-counter-store'

/** The counter store the config asks for: Redis when REDIS_URL is set, else in memory. */
export async function openCounterStore(config: Pick<Config, 'redisUrl' | 'redisCommandTimeoutMs'>, log: Logger): Promise<CounterStore> {
  if (config.redisUrl) return RedisCounterStore.open(config.redisUrl, log, { commandTimeoutMs: config.redisCommandTimeoutMs })
  return new MemoryCounterStore()
}
