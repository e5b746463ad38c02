import { cpus, freemem, loadavg, totalmem } from 'node:os'
import { runtimeSettings, withRuntimeEnv } from '../../src/runtime-env'

export interface Machine {
  cpu_model: string
  /** `nproc`: cores this process may use. */
  nproc: number
  mem_total_gb: number
  mem_free_gb: number
  os: string
  bun: string
  /** 1-minute load average when the run started (other work on the machine skews p99s). */
  load_avg_1m: number
  /** The runtime settings the scenarios and the servers they start run under (src/runtime-env.ts). */
  runtime_env?: Record<string, string>
}

function nproc(): number {
  const r = Bun.spawnSync(['nproc'])
  const n = Number(r.stdout.toString().trim())
  return Number.isInteger(n) && n > 0 ? n : cpus().length
}

/** What the figures were measured on (bench/README.md quotes it). */
export function machineInfo(): Machine {
  const gb = (b: number) => Math.round((b / 2 ** 30) * 10) / 10
  return {
    cpu_model: cpus()[0]?.model?.trim() ?? 'unknown',
    nproc: nproc(),
    mem_total_gb: gb(totalmem()),
    mem_free_gb: gb(freemem()),
    os: `${process.platform} ${process.arch}`,
    bun: Bun.version,
    load_avg_1m: Math.round(loadavg()[0] * 100) / 100,
    runtime_env: runtimeSettings(withRuntimeEnv(process.env)),
  }
}
