/** Runs the real supervisor (app/supervisor.ts) over two chatty stand-in workers. */
import { join } from 'node:path'
import { supervise } from '../../../app/supervisor'
import type { Config } from '../../../src/config'
import { logger } from '../../../src/log'

await supervise({ workers: 2, port: 0, shutdownTimeoutS: 10 } as Config, join(import.meta.dir, 'chatty-worker.ts'), logger)
