/**
 * JSON from a user's file, with errors that name a position and never quote the text:
 * V8's own messages quote the start of the input (`Unexpected token 'S', "SECRET=…" is
 * not valid JSON`), and a file may be a link to anything (`/proc/self/environ`).
 */

/** Where the first syntax error of `text` is (0-based offset), found by a strict JSON scanner; `undefined` when none is found. */
export function jsonErrorOffset(text: string): number | undefined {
  let i = 0
  const fail = (): never => {
    throw i
  }
  const ws = () => {
    while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++
  }
  const string = () => {
    i++
    for (;;) {
      const c = text.charCodeAt(i)
      if (Number.isNaN(c) || c < 0x20) fail()
      if (c === 0x22) return void i++
      if (c === 0x5c) {
        const e = text[i + 1]
        if (e !== undefined && '"\\/bfnrt'.includes(e)) i += 2
        else if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) i += 6
        else (i++, fail())
      } else i++
    }
  }
  const number = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y
  const value = (): void => {
    ws()
    const c = text[i]
    if (c === '{' || c === '[') {
      const close = c === '{' ? '}' : ']'
      i++
      ws()
      if (text[i] === close) return void i++
      for (;;) {
        if (c === '{') {
          ws()
          if (text[i] !== '"') fail()
          string()
          ws()
          if (text[i] !== ':') fail()
          i++
        }
        value()
        ws()
        if (text[i] === ',') i++
        else if (text[i] === close) return void i++
        else fail()
      }
    }
    if (c === '"') return string()
    for (const word of ['true', 'false', 'null']) if (text.startsWith(word, i)) return void (i += word.length)
    number.lastIndex = i
    if (!number.test(text)) fail()
    i = number.lastIndex
  }
  try {
    value()
    ws()
    return i < text.length ? i : undefined
  } catch (error) {
    // A number is the offset; anything else (a nesting too deep for the stack) has no position.
    return typeof error === 'number' ? error : undefined
  }
}

/** `line L, column C` (1-based) of `offset` in `text`. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1
  let start = 0
  for (let at = text.indexOf('\n'); at !== -1 && at < offset; at = text.indexOf('\n', at + 1)) {
    line++
    start = at + 1
  }
  return { line, column: offset - start + 1 }
}

/** Where `text`'s JSON breaks, for a message: `at line 3, column 14` (or `at column 14` with `oneLine`); `at an unknown position` when the scanner finds none. */
export function jsonErrorPosition(text: string, options: { oneLine?: boolean } = {}): string {
  const offset = jsonErrorOffset(text)
  if (offset === undefined) return 'at an unknown position'
  if (offset >= text.length) return 'at the end: the text stops early'
  const { line, column } = lineAndColumn(text, offset)
  return options.oneLine ? `at column ${column}` : `at line ${line}, column ${column}`
}

/**
 * `JSON.parse(text)`, or the error `fail` makes from the position of the first syntax
 * error (`at line 3, column 14`). The message never quotes the text.
 */
export function parseJsonText(text: string, fail: (position: string) => Error, options: { oneLine?: boolean } = {}): unknown {
  try {
    return JSON.parse(text)
  } catch {
    throw fail(jsonErrorPosition(text, options))
  }
}
