import type { GroupBy } from './stats-params'

/**
 * The counting loops of the statistics, all derived from one definition: what a grouping adds
 * per counted item (GROUPINGS), and where the items come from (SOURCES). An item is a row (a
 * count of 1) or an aggregate cell of the stats cube (a count of n); either way it exposes the
 * same values under the same names — camera code `cam`, sol `s`, sol rank `k`, rover code `rv`,
 * count `n`, earliest and latest earth_date `d0`/`d1` (-1 when absent) — so one grouping's code runs
 * unchanged over every source, and the period (earliest and latest day) is tracked in the same
 * pass by every loop alike.
 *
 * Why generated code: a shared loop calling a per-grouping function, or switching on the
 * grouping per item, ran several times slower than hand-written loops (the JIT saw one
 * polymorphic loop). So each (source, grouping) pair is compiled once with `new Function` from
 * the static template strings below and cached under its two names: every loop stays
 * monomorphic with its arrays in locals, and its text is made only of these constants — the
 * request's values (bounds, rover code, row lists) are arguments, never code.
 */
export interface StatsTally {
  total: number
  /** [earliest, latest] earth_date of the matches with a date (Infinity/-Infinity: none yet). */
  period: Float64Array
  /** By camera dictionary code. */
  byCode: Uint32Array
  /** By rover code (store.rovers). */
  roverCounts: Uint32Array
  /** (rover * span + sol rank) -> 1 when the rover has a matching photo that sol. */
  roverSolSeen: Uint8Array
  /** Sol ranks per rover in roverSolSeen: distinct sols + 1 (the rank of "no sol"). */
  span: number
  /** By sol rank. */
  solCounts: Uint32Array
  solFirstDay: Float64Array
  /** Sol ranks outside [solRankFrom, solRankTo) hold no count (a sol bound narrows it; else the whole span). */
  solRankFrom: number
  solRankTo: number
}

/** The item values a loop can bind (see above). */
type Value = 'cam' | 'k' | 'rv' | 'n' | 's' | 'd0' | 'd1'

interface Grouping {
  /** Values the code reads. */
  uses: Value[]
  /** Tally fields copied into locals before the loop. */
  locals: Array<keyof StatsTally>
  /** Statements per counted item. */
  add: string
}

const GROUPINGS: Record<GroupBy, Grouping> = {
  camera: { uses: ['cam'], locals: ['byCode'], add: 'byCode[cam] += n' },
  rover: { uses: ['rv', 'k'], locals: ['roverCounts', 'roverSolSeen', 'span'], add: 'roverCounts[rv] += n; roverSolSeen[rv * span + k] = 1' },
  sol: { uses: ['k', 'd0'], locals: ['solCounts', 'solFirstDay'], add: 'solCounts[k] += n; if (d0 >= 0 && d0 < solFirstDay[k]) solFirstDay[k] = d0' },
}

interface Source {
  /** The loop header; the body sees the item's position as `i` (rows: `r`). */
  loop: string
  /** Expression per value over the source's arrays (`a.<name>` copied into locals first). */
  values: Partial<Record<Value, string>>
  /** Arrays of `a` each value expression reads. */
  arrays: Partial<Record<Value, string[]>>
  /** Values the item test reads, and the test (`continue` when the item does not match). */
  test?: { uses: Value[]; code: string }
}

/** Row values: the photo columns (a = RowColumns). */
const ROW_VALUES: Source['values'] = { cam: 'camera[r]', k: 'solRank[r]', rv: 'rover[r]', n: '1', d0: 'day[r]', d1: 'd0' }
const ROW_ARRAYS: Source['arrays'] = { cam: ['camera'], k: ['solRank'], rv: ['rover'], d0: ['day'] }
// Cube cells: bounds in b = [sol lo, sol hi, day lo, day hi], cameras allowed by code in `cams`
// (a = StatsCube, or its SolCells when neither cameras nor dates filter).
const CELL_TEST = 's < solLo || s > solHi || d0 < dayLo || d0 > dayHi || cams[cam] === 0'

export type SourceName = 'rows' | 'range' | 'cells' | 'solCells' | 'cameraCells'

const SOURCES: Record<SourceName, Source> = {
  /** The rows listed in rows[0..to). */
  rows: { loop: 'for (let i = 0; i < to; i++) { const r = rows[i];', values: ROW_VALUES, arrays: ROW_ARRAYS },
  /** The rows from..to-1 in table order. */
  range: { loop: 'for (let r = from; r < to; r++) {', values: ROW_VALUES, arrays: ROW_ARRAYS },
  /** Cube cells from..to-1 of rover rv, tested against the bounds. */
  cells: {
    loop: 'for (let i = from; i < to; i++) {',
    values: { s: 'sol[i]', cam: 'camera[i]', k: 'solRank[i]', rv: 'cellRover', n: 'count[i]', d0: 'day[i]', d1: 'd0' },
    arrays: { s: ['sol'], cam: ['camera'], k: ['solRank'], n: ['count'], d0: ['day'] },
    test: { uses: ['s', 'd0', 'cam'], code: CELL_TEST },
  },
  /** Per-(rover, sol) cells from..to-1 of rover rv, tested against the sol bounds; no camera. */
  solCells: {
    loop: 'for (let i = from; i < to; i++) {',
    values: { s: 'sol[i]', k: 'solRank[i]', rv: 'cellRover', n: 'count[i]', d0: 'minDay[i]', d1: 'maxDay[i]' },
    arrays: { s: ['sol'], k: ['solRank'], n: ['count'], d0: ['minDay'], d1: ['maxDay'] },
    test: { uses: ['s'], code: 's < solLo || s > solHi' },
  },
  /** Per-(rover, camera) cells from..to-1 of rover cellRover, tested against the cameras; no sol. */
  cameraCells: {
    loop: 'for (let i = from; i < to; i++) {',
    values: { cam: 'camera[i]', rv: 'cellRover', n: 'count[i]', d0: 'minDay[i]', d1: 'maxDay[i]' },
    arrays: { cam: ['camera'], n: ['count'], d0: ['minDay'], d1: ['maxDay'] },
    test: { uses: ['cam'], code: 'cams[cam] === 0' },
  },
}

/** Binding order: a value may read one bound before it (d1 = d0; a tested value is bound before the untested). */
const ORDER: Value[] = ['s', 'cam', 'k', 'rv', 'n', 'd0', 'd1']

/**
 * Adds the items of `source` to `t`: rows lists rows[0..to) (from unused); range, cells and
 * solCells take [from, to). `a` holds the source's arrays; cellRover, b and cams are the cells'
 * rover code, bounds and allowed cameras.
 */
export type TallyLoop = (a: object, t: StatsTally, from: number, to: number, rows: Int32Array | null, cellRover: number, b: Float64Array | null, cams: Uint8Array | null) => void

const compiled = new Map<string, TallyLoop>()

export function tallyLoop(source: SourceName, groupBy: GroupBy): TallyLoop {
  const key = `${source}:${groupBy}`
  let loop = compiled.get(key)
  if (!loop) {
    loop = compile(SOURCES[source], GROUPINGS[groupBy], key)
    compiled.set(key, loop)
  }
  return loop
}

function compile(src: Source, g: Grouping, key: string): TallyLoop {
  const used = new Set<Value>(['n', 'd0', 'd1', ...g.uses, ...(src.test?.uses ?? [])])
  const tested = new Set<Value>(src.test?.uses ?? [])
  const arrays = new Set<string>()
  // The values the test reads are read before it, the others only for items that pass.
  const before: string[] = []
  const after: string[] = []
  for (const v of ORDER) {
    if (!used.has(v)) continue
    const expr = src.values[v]
    if (expr === undefined) throw new Error(`stats loop ${key}: the source has no "${v}"`)
    for (const name of src.arrays[v] ?? []) arrays.add(name)
    ;(tested.has(v) ? before : after).push(`const ${v} = ${expr};`)
  }
  const body = `
    ${[...arrays].map((name) => `const ${name} = a.${name};`).join('\n    ')}
    ${g.locals.map((name) => `const ${name} = t.${name};`).join('\n    ')}
    ${src.test ? 'const solLo = b[0], solHi = b[1], dayLo = b[2], dayHi = b[3];' : ''}
    let lo = t.period[0];
    let hi = t.period[1];
    let total = 0;
    ${src.loop}
      ${before.join(' ')}
      ${src.test ? `if (${src.test.code}) continue;` : ''}
      ${after.join(' ')}
      total += n;
      ${g.add};
      if (d0 >= 0) {
        if (d0 < lo) lo = d0;
        if (d1 > hi) hi = d1;
      }
    }
    t.total += total;
    t.period[0] = lo;
    t.period[1] = hi;`
  return new Function('a', 't', 'from', 'to', 'rows', 'cellRover', 'b', 'cams', body) as TallyLoop
}
