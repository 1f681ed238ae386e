// In-process tests of the Vitest layer's small parts: bounds and marks, progress, scorer
// handles, the plugin's include, the reporter's suite block.
import { describe, expect, test } from 'vitest'
import { configDefaults } from 'vitest/config'
import { formatBound, meets, slug, thresholdMark, worstCriterion } from '../../src/suite/assertions/format.ts'
import { scorerHandle } from '../../src/suite/score-suite.ts'
import { sceptic } from '../../src/vitest/plugin/plugin.ts'
import { formatDuration, formatProgress, interactiveTerminal, parseProgress, progressEmitter } from '../../src/suite/progress.ts'
import { blobRun } from '../../src/vitest/reporter/reporter.ts'
import { renderSuite } from '../../src/suite/suite-report.ts'
import { fakeResult } from '../helpers/fake-result.ts'

describe('helpers', () => {
  test('bounds and marks agree', () => {
    expect(meets(0.7 - 1e-12, 0.7)).toBe(true)
    expect(meets(null, 0)).toBe(false)
    expect(thresholdMark(true, 0.7)).toBe('✓ ≥ 0.70')
    expect(thresholdMark(false, 0.8)).toBe('✗ < 0.80')
    expect(formatBound(0.875)).toBe('0.875')
    expect(worstCriterion({ b: 0.5, a: 0.5, c: 0.9 })).toEqual(['a', 0.5])
    expect(slug('Support triage (v2)!')).toBe('support-triage-v2')
  })

  test('progress: throttled, parsed, formatted; only on a terminal outside CI', () => {
    const lines: string[] = []
    let t = 0
    const emit = progressEmitter('s', (line) => lines.push(line), () => t, 1000)
    for (const scored of [10, 20, 30, 40, 100]) {
      t += 600
      emit({ scored, total: 100, requestsScored: 0, requestsTotal: 0 })
    }
    expect(lines).toHaveLength(2) // at 1200 ms and 2400 ms; the final one is never sent
    expect(parseProgress(lines[0]!)).toEqual({ suite: 's', scored: 20, total: 100, elapsedMs: 1200 })
    expect(parseProgress('hello')).toBeUndefined()
    expect(formatProgress({ suite: 's', scored: 20, total: 100, elapsedMs: 2000 })).toBe('s: 20/100 decisions scored · 10.0/s · ETA 8s')
    expect(formatDuration(185)).toBe('3m 05s')
    expect(interactiveTerminal({}, { isTTY: true })).toBe(true)
    expect(interactiveTerminal({ CI: 'true' }, { isTTY: true })).toBe(false)
    expect(interactiveTerminal({}, { isTTY: false })).toBe(false)
    expect(interactiveTerminal({ SCEPTIC_PROGRESS: '1', CI: '1' }, {})).toBe(true)
  })

  test('scorer handles: a ScoreFn carrying description/close (ONNX, HTTP scorers) is used as one', async () => {
    let closed = 0
    const fn = Object.assign(() => [[1]], { description: 'onnx models/tiny (2 workers)', close: async () => void closed++ })
    const handle = scorerHandle(fn)
    expect(handle.description).toBe('onnx models/tiny (2 workers)')
    await handle.close?.()
    expect(closed).toBe(1)
    expect(scorerHandle(() => [[1]]).description).toBeUndefined()
  })

  test('plugin: the eval include is added to the project\'s (or to Vitest\'s default); vm pools refused', () => {
    const plugin = sceptic() as unknown as { config: (c: { test?: { include?: string[]; pool?: string } }) => unknown }
    const unset: { test?: { include?: string[] } } = {}
    plugin.config(unset)
    expect(unset.test?.include).toEqual([...configDefaults.include, 'evals/**/*.eval.{ts,mts,cts,js,mjs,cjs}'])
    const own = { test: { include: ['x/*.ts'] } }
    plugin.config(own)
    expect(own.test.include).toEqual(['x/*.ts', 'evals/**/*.eval.{ts,mts,cts,js,mjs,cjs}'])
    expect(() => plugin.config({ test: { pool: 'vmForks' } })).toThrow(/vm pools run tests in a separate V8 realm/)
  })

  test('reporter: blob runs are detected; a suite block carries marks and the baseline verdict', () => {
    expect(blobRun({ config: { reporters: [['blob', {}]] } } as never)).toBe(true)
    expect(blobRun({ config: { reporters: [['default', {}]] } } as never)).toBe(false)
    const { records: _records, ...result } = fakeResult(Array(10).fill(true))
    const text = renderSuite(
      {
        file: 'evals/x.eval.ts',
        meta: {
          schema: 1,
          suite: 'x',
          thresholds: { balancedAccuracy: 0.9, orderConsistency: 0.5, perCriterion: 0.7 },
          result,
          baseline: { status: 'pass', pass: true, file: 'b/x.json', message: 'no significant drop' },
        },
      },
      false,
    )
    expect(text).toMatch(/balanced accuracy\s+85\.0%.*✗ < 90\.0%/)
    expect(text).toMatch(/order consistency\s+100\.0%.*✓ ≥ 50\.0%/)
    expect(text).toMatch(/every criterion\s+✗ < 0\.70\s+worst "refund" 0\.620/)
    expect(text).toMatch(/baseline\s+✓ pass\s+b\/x\.json\n  no significant drop/)
    expect(renderSuite({ file: 'f', meta: { schema: 1, suite: 'y', thresholds: {}, error: 'boom' } }, false)).toBe('y  f\nnot scored: boom')
  })
})
