// Small enough to read: no function over 100 lines, no file over 400, in src/.
import { describe, expect, it } from 'vitest'
import { functionSizes, sourceSizes } from '../../scripts/function-sizes.mjs'

const MAX_FUNCTION_LINES = 100
const MAX_FILE_LINES = 400

describe('sizes', () => {
  const { files, functions } = sourceSizes()
  const long = functions.filter((f) => f.lines > MAX_FUNCTION_LINES)

  it(`no function in src/ is over ${MAX_FUNCTION_LINES} lines`, () => {
    expect(long.map((f) => `${f.file}:${f.line} ${f.name} (${f.lines} lines)`)).toEqual([])
  })

  it(`no file in src/ is over ${MAX_FILE_LINES} lines`, () => {
    expect(files.filter((f) => f.lines > MAX_FILE_LINES).map((f) => `${f.file} (${f.lines} lines)`)).toEqual([])
  })

  it('counts a function from its first line to its last, and names nested anonymous ones after their parent', () => {
    const source = [
      '/** Doc comments do not count. */',
      'export function outer(a: number) {',
      '  const inner = (b: number) => b + 1',
      '  return [a].map((x) => {',
      '    return inner(x)',
      '  })',
      '}',
      'class K {',
      '  method() {',
      '    return 1',
      '  }',
      '}',
      '',
    ].join('\n')
    expect(functionSizes(source)).toEqual([
      { name: 'outer', line: 2, lines: 6 },
      { name: 'inner', line: 3, lines: 1 },
      { name: 'outer/<anonymous>', line: 4, lines: 3 },
      { name: 'method', line: 9, lines: 3 },
    ])
  })
})
