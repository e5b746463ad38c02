import type { Store } from '../../src/store/store'
import type { PeerShape } from '../lib/result'
import type { EngineApi } from '../lib/engine-api'
import { measureAsync, measureSync, round3, type MeasureOptions } from '../lib/measure'
import { answerDifference, ourAnswer, ourCall, type Answer } from '../lib/our-call'
import type { PeerSql, QueryShape } from '../shapes'

/** A database the bench compares with: statements in, rows (arrays of JS values) out. */
export interface PeerDb {
  name: string
  version: string
  query(sql: string): Promise<unknown[][]>
}

/** Runs a shape's SQL the way a client of the peer would, and reads the answer. */
export function peerCall(db: PeerDb, sql: PeerSql): () => Promise<Answer> {
  if (sql.kind === 'page')
    return async () => {
      const count = await db.query(sql.count)
      const rows = await db.query(sql.rows)
      return { ids: rows.map((r) => String(r[0])), total: Number(count[0][0]) }
    }
  if (sql.kind === 'stats')
    return async () => {
      const groups = new Map<string, number>()
      let total = 0
      for (const r of await db.query(sql.groups)) {
        groups.set(String(r[0]), Number(r[1]))
        total += Number(r[1])
      }
      return { ids: [], total, groups }
    }
  if (sql.kind === 'related') {
    const part = async (name: string, q: { rows: string; count: string } | undefined, ids: string[], groups: Map<string, number>) => {
      if (!q) return
      groups.set(name, Number((await db.query(q.count))[0][0]))
      for (const r of await db.query(q.rows)) ids.push(`${name} ${r[0]}`)
    }
    return async () => {
      const [facts] = await db.query(sql.photo)
      const parts = sql.parts(facts ?? [])
      const ids: string[] = []
      const groups = new Map<string, number>()
      if (parts.partner) for (const r of await db.query(parts.partner)) ids.push(`stereo ${r[0]}`)
      await part('sequence', parts.sequence, ids, groups)
      await part('nearby', parts.nearby, ids, groups)
      return { ids, groups }
    }
  }
  return async () => {
    const byId = new Map<number, unknown[]>()
    for (const r of await db.query(sql.rows)) byId.set(Number(r[0]), r)
    const seen = new Set<number>()
    const ids: string[] = []
    for (const id of sql.ids) if (byId.has(id) && !seen.has(id)) { seen.add(id); ids.push(String(id)) }
    return { ids }
  }
}

export interface PeerTimingOptions {
  ours: MeasureOptions
  peer: MeasureOptions
  /** The speedup a shape must reach (it may depend on the shape's work). */
  goalSpeedup: (shape: QueryShape) => number
  log: (line: string) => void
}

/**
 * For each shape: answer it both ways, check the answers are equal (same ids in the same
 * order, same counts), and only then time both. A mismatch fails the shape and is reported
 * with the first difference; it is never timed.
 */
export async function benchPeerShapes(db: PeerDb, shapes: QueryShape[], engine: EngineApi, store: Store, o: PeerTimingOptions): Promise<PeerShape[]> {
  const out: PeerShape[] = []
  for (const shape of shapes) {
    const goal = o.goalSpeedup(shape)
    const base = { name: shape.name, work: shape.work, goal_speedup: goal }
    const ours = ourCall(shape, engine, store)
    if (shape.skip || typeof ours === 'string' || !shape.sql) {
      out.push({ ...base, check: 'skipped', detail: shape.skip ?? (typeof ours === 'string' ? ours : 'no SQL') })
      continue
    }
    const theirs = peerCall(db, shape.sql)
    try {
      const diff = answerDifference(ourAnswer(shape.endpoint, ours()), await theirs())
      if (diff) {
        out.push({ ...base, check: 'mismatch', detail: diff })
        o.log(`  ${shape.name}: MISMATCH ${diff}`)
        continue
      }
      const us = measureSync(ours, o.ours)
      const them = await measureAsync(theirs, o.peer)
      const speedup = them.p50 / us.p50
      out.push({
        ...base, check: 'equal', ours_p50_ms: round3(us.p50), peer_p50_ms: round3(them.p50), peer_p99_ms: round3(them.p99),
        speedup: round3(speedup), met: speedup >= goal,
      })
      o.log(`  ${shape.name}: ours ${round3(us.p50)} ms, ${db.name} ${round3(them.p50)} ms, x${round3(speedup)}`)
    } catch (e) {
      out.push({ ...base, check: 'failed', detail: (e as Error).message.split('\n')[0] })
      o.log(`  ${shape.name}: FAILED ${(e as Error).message.split('\n')[0]}`)
    }
  }
  return out
}
