// Data flows one way: decisions → requests → scores → aggregation → result → report.
// Each folder of src/ may import only the folders listed for it (type-only imports too).
import { readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { relativeImports, sourceFiles } from './source-files.ts'

const src = resolve(import.meta.dirname, '../../src')

/** The core's stage folders, bottom floor first: a stage imports only stages below it. */
const CORE_STAGES = ['support', 'math', 'decisions', 'requests', 'scorer', 'result', 'metrics', 'statistics', 'thresholds', 'compare', 'evaluate', 'shards']

/** What each top-level folder of src/ may import besides itself. */
const ALLOWED: Record<string, readonly string[]> = {
  core: [],
  cache: ['core'],
  scorers: ['core'],
  ai: ['core'],
  report: ['core', 'run'],
  run: ['core', 'cache'],
  cli: ['core', 'cache', 'report', 'scorers', 'run'],
  // The runner-neutral suite: options, scoring a suite, the baseline file and its gate, the result matchers, the suite record.
  suite: ['core', 'cache', 'report', 'scorers', 'run'],
  // The runners' faces stand on the suite layer and never import each other (faces.test.ts).
  vitest: ['core', 'cache', 'report', 'scorers', 'run', 'suite'],
  jest: ['core', 'cache', 'report', 'scorers', 'run', 'suite'],
}

/** `core/math`, `vitest`, `index.ts`: the unit a file belongs to for these rules. */
function unitOf(path: string): { top: string; stage?: string } {
  const [top, second] = relative(src, path).split('/')
  if (top === 'core' && second !== undefined && CORE_STAGES.includes(second)) return { top, stage: second }
  return { top: top!.replace(/\.ts$/, '') }
}

interface Edge {
  from: string
  to: string
}

function edges(): Edge[] {
  return sourceFiles(src).flatMap((file) =>
    relativeImports(readFileSync(file, 'utf8'))
      .map((spec) => resolve(dirname(file), spec))
      .filter((target) => target.startsWith(src + '/'))
      .map((target) => ({ from: relative(src, file), to: relative(src, target) })),
  )
}

function violation({ from, to }: Edge): string | undefined {
  const a = unitOf(join(src, from))
  const b = unitOf(join(src, to))
  if (a.top === 'index') return undefined // the package root is the one place that gathers faces
  if (a.top === b.top) {
    if (a.top !== 'core' || !a.stage || !b.stage || a.stage === b.stage) return undefined
    return CORE_STAGES.indexOf(b.stage) < CORE_STAGES.indexOf(a.stage) ? undefined : `core/${a.stage} is below core/${b.stage}`
  }
  if (a.top === 'core') return `core imports nothing outside core`
  const allowed = ALLOWED[a.top]
  if (!allowed) return `${a.top}/ has no layer rule: add it to ALLOWED`
  return allowed.includes(b.top) ? undefined : `${a.top} may import only ${allowed.join(', ') || 'itself'}`
}

describe('layers', () => {
  it('every import runs down the layers', () => {
    const bad = edges().flatMap((edge) => {
      const why = violation(edge)
      return why ? [`${edge.from} → ${edge.to}: ${why}`] : []
    })
    expect(bad).toEqual([])
  })

  it('the rule itself catches an upward import', () => {
    expect(violation({ from: 'core/math/normal.ts', to: 'core/metrics/headline.ts' })).toMatch(/below/)
    expect(violation({ from: 'core/result/result.ts', to: 'report/terminal.ts' })).toMatch(/outside core/)
    expect(violation({ from: 'scorers/http/openai.ts', to: 'cache/key.ts' })).toMatch(/only core/)
    expect(violation({ from: 'cli/progress.ts', to: 'suite/progress.ts' })).toMatch(/may import only/)
    expect(violation({ from: 'jest/decide.ts', to: 'vitest/reporter/reporter.ts' })).toMatch(/may import only/)
    expect(violation({ from: 'vitest/suite/describe-decisions.ts', to: 'jest/decide.ts' })).toMatch(/may import only/)
    expect(violation({ from: 'suite/score-suite.ts', to: 'vitest/suite/context.ts' })).toMatch(/may import only/)
    expect(violation({ from: 'vitest/suite/describe-decisions.ts', to: 'core/evaluate/index.ts' })).toBeUndefined()
  })

  it('src/core keeps at most 12 files loose', () => {
    const loose = sourceFiles(join(src, 'core')).filter((file) => dirname(file) === join(src, 'core'))
    expect(loose.length).toBeLessThanOrEqual(12)
  })
})
