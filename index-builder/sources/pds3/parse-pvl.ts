/**
 * A parser for PDS3 labels: ODL, the Parameter Value Language as PDS3 writes it (PDS Standards
 * Reference ch. 12). Handles `/* … *\/` comments (also across lines), `KEY = VALUE` statements
 * whose value continues on later lines, namespaced and pointer keys (`MSL:…`, `^IMAGE`),
 * `GROUP`/`OBJECT` blocks with their `END_GROUP`/`END_OBJECT`, quoted strings (line breaks inside
 * fold into one space), `'literals'`, `(…)` sequences and `{…}` sets (nested), and units
 * (`44.9548 <deg>`). The label stops at `END`.
 *
 * The input is untrusted: one linear pass over the text, block and list nesting bounded, every
 * error a PvlError with the line it is on.
 */
export type PvlScalar = string | number
export type PvlValue = PvlScalar | { value: PvlScalar; unit: string } | PvlValue[]

export interface PvlBlock {
  kind: 'LABEL' | 'GROUP' | 'OBJECT'
  name: string
  /** Statements in label order (a key may repeat across blocks, rarely within one). */
  entries: Array<[string, PvlValue]>
  blocks: PvlBlock[]
}

export class PvlError extends Error {
  constructor(message: string, readonly line: number) {
    super(`line ${line}: ${message}`)
    this.name = 'PvlError'
  }
}

const MAX_BLOCK_DEPTH = 16
const MAX_LIST_DEPTH = 8

type Tok = { t: '=' | '(' | ')' | '{' | '}' | ',' | 'unit' | 'str' | 'word' | 'eof'; v: string; line: number }

function tokenize(text: string): Tok[] {
  const toks: Tok[] = []
  let line = 1
  let i = 0
  const n = text.length
  while (i < n) {
    const c = text[i]!
    if (c === '\n') {
      line++
      i++
    } else if (c === ' ' || c === '\t' || c === '\r' || c === '\f') i++
    else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2)
      if (end < 0) throw new PvlError('unterminated comment', line)
      for (let k = i; k < end; k++) if (text.charCodeAt(k) === 10) line++
      i = end + 2
    } else if (c === '=' || c === '(' || c === ')' || c === '{' || c === '}' || c === ',') {
      toks.push({ t: c, v: c, line })
      i++
    } else if (c === '"' || c === "'") {
      const end = text.indexOf(c, i + 1)
      if (end < 0) throw new PvlError('unterminated quoted string', line)
      const raw = text.slice(i + 1, end)
      toks.push({ t: 'str', v: c === '"' ? raw.replace(/\s*\r?\n\s*/g, ' ') : raw, line })
      for (let k = i; k < end; k++) if (text.charCodeAt(k) === 10) line++
      i = end + 1
    } else if (c === '<') {
      const end = text.indexOf('>', i + 1)
      if (end < 0 || end - i > 64) throw new PvlError('unterminated unit', line)
      toks.push({ t: 'unit', v: text.slice(i + 1, end).trim(), line })
      i = end + 1
    } else {
      const start = i
      while (i < n && !/[\s=(){},"'<]/.test(text[i]!)) {
        if (text[i] === '/' && text[i + 1] === '*') break
        i++
      }
      toks.push({ t: 'word', v: text.slice(start, i), line })
    }
  }
  toks.push({ t: 'eof', v: '', line })
  return toks
}

// `\d+(\.\d*)?`, not `\d+\.?\d*`: the latter backtracks quadratically on a long run of digits that fails.
const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/

function scalar(word: string): PvlScalar {
  return NUMBER.test(word) ? Number(word) : word
}

export function parsePvl(text: string): PvlBlock {
  const toks = tokenize(text)
  let p = 0
  const peek = () => toks[p]!
  const next = () => toks[p++]!
  const expect = (t: Tok['t']) => {
    const k = next()
    if (k.t !== t) throw new PvlError(`expected "${t}", found ${k.t === 'eof' ? 'end of label' : `"${k.v}"`}`, k.line)
    return k
  }

  const value = (depth: number): PvlValue => {
    const k = next()
    if (k.t === '(' || k.t === '{') {
      if (depth >= MAX_LIST_DEPTH) throw new PvlError(`lists nested deeper than ${MAX_LIST_DEPTH}`, k.line)
      const close = k.t === '(' ? ')' : '}'
      const items: PvlValue[] = []
      if (peek().t === close) {
        next()
        return items
      }
      for (;;) {
        items.push(value(depth + 1))
        const sep = next()
        if (sep.t === close) return items
        if (sep.t !== ',') throw new PvlError(`expected "," or "${close}" in a list, found "${sep.v}"`, sep.line)
      }
    }
    let v: PvlScalar
    if (k.t === 'str') v = k.v
    else if (k.t === 'word') v = scalar(k.v)
    else throw new PvlError(`expected a value, found ${k.t === 'eof' ? 'end of label' : `"${k.v}"`}`, k.line)
    if (peek().t === 'unit') return { value: v, unit: next().v }
    return v
  }

  const block = (kind: PvlBlock['kind'], name: string, depth: number): PvlBlock => {
    const b: PvlBlock = { kind, name, entries: [], blocks: [] }
    for (;;) {
      const k = next()
      if (k.t === 'eof') {
        if (kind === 'LABEL') return b
        throw new PvlError(`${kind} ${name} has no END_${kind}`, k.line)
      }
      if (k.t !== 'word') throw new PvlError(`expected a keyword, found "${k.v}"`, k.line)
      const key = k.v.toUpperCase()
      if (key === 'END') {
        if (kind !== 'LABEL') throw new PvlError(`END inside ${kind} ${name}`, k.line)
        return b
      }
      if (key === 'END_GROUP' || key === 'END_OBJECT') {
        const endKind = key.slice(4)
        if (endKind !== kind) throw new PvlError(`${key} closes ${kind === 'LABEL' ? 'nothing' : `${kind} ${name}`}`, k.line)
        if (peek().t === '=') {
          next()
          const closing = expect('word').v
          if (closing.toUpperCase() !== name.toUpperCase()) throw new PvlError(`${key} = ${closing} closes ${kind} ${name}`, k.line)
        }
        return b
      }
      expect('=')
      if (key === 'GROUP' || key === 'OBJECT' || key === 'BEGIN_GROUP' || key === 'BEGIN_OBJECT') {
        if (depth >= MAX_BLOCK_DEPTH) throw new PvlError(`blocks nested deeper than ${MAX_BLOCK_DEPTH}`, k.line)
        const nameTok = next()
        if (nameTok.t !== 'word' && nameTok.t !== 'str') throw new PvlError(`${key} needs a name`, nameTok.line)
        b.blocks.push(block(key.endsWith('GROUP') ? 'GROUP' : 'OBJECT', nameTok.v, depth + 1))
        continue
      }
      b.entries.push([key, value(0)])
    }
  }
  return block('LABEL', '', 0)
}

/** The value of `key` directly in `b` (not in its sub-blocks). */
export function pvlGet(b: PvlBlock, key: string): PvlValue | undefined {
  for (const [k, v] of b.entries) if (k === key) return v
  return undefined
}

/** The first sub-block of `b` of that kind and name (case-insensitive). */
export function pvlBlock(b: PvlBlock, kind: 'GROUP' | 'OBJECT', name: string): PvlBlock | undefined {
  const want = name.toUpperCase()
  return b.blocks.find((x) => x.kind === kind && x.name.toUpperCase() === want)
}

/** A scalar without its unit. */
export function pvlScalar(v: PvlValue | undefined): PvlScalar | undefined {
  if (v === undefined || Array.isArray(v)) return undefined
  return typeof v === 'object' ? v.value : v
}

export function pvlNumber(v: PvlValue | undefined): number | undefined {
  const s = pvlScalar(v)
  const n = typeof s === 'number' ? s : typeof s === 'string' && NUMBER.test(s.trim()) ? Number(s) : undefined
  return n !== undefined && Number.isFinite(n) ? n : undefined
}

export function pvlString(v: PvlValue | undefined): string | undefined {
  const s = pvlScalar(v)
  return s === undefined ? undefined : String(s)
}
