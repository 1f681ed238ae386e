import { describe, expect, it } from 'vitest'
import { run } from '../helpers/run.ts'

// The published entry points, as a user's Node resolves them (package self-reference to dist/).
describe('package exports', () => {
  it('vitest-sceptic/core gives the documented API without loading vitest or onnxruntime', async () => {
    const script = `
      const core = await import('vitest-sceptic/core')
      const names = ['loadDecisions', 'evaluateWithScorer', 'orderings', 'DEBIAS_MODES', 'groupSplit',
        'meanGroupBalancedAccuracy', 'chanceAccuracy', 'ConfigError', 'DataError', 'ScorerError', 'EvaluationError']
      const missing = names.filter((n) => !(n in core))
      console.log(JSON.stringify({ missing, modes: core.DEBIAS_MODES, scorerIsEvaluationError: new core.ScorerError('x') instanceof core.EvaluationError }))
    `
    const { code, stdout, stderr } = await run(process.execPath, ['--input-type=module', '-e', script])
    expect(stderr).toBe('')
    expect(code).toBe(0)
    const out = JSON.parse(stdout)
    expect(out.missing).toEqual([])
    expect(out.modes).toEqual(expect.arrayContaining(['none', 'cyclic', 'permutation', 'calibrated']))
    expect(out.scorerIsEvaluationError).toBe(true)
  })

  it('vitest-sceptic/report renders, vitest-sceptic/stats computes, and the root stays curated (at most 60 names)', async () => {
    const script = `
      const report = await import('vitest-sceptic/report')
      const stats = await import('vitest-sceptic/stats')
      const root = await import('vitest-sceptic')
      console.log(JSON.stringify({
        report: ['render', 'renderComparison', 'colorEnabled', 'eceNote', 'renderHtmlReport'].filter((n) => !(n in report)),
        stats: ['wilsonInterval', 'mcnemarExact', 'percentileBootstrap', 'computeStatistics', 'bernoulliConfidenceSequence'].filter((n) => !(n in stats)),
        root: ['describeDecisions', 'evaluateWithScorer', 'openAIScorer', 'onnxScorer', 'ConfigError'].filter((n) => !(n in root)),
        rootCount: Object.keys(root).length,
        wilson: stats.wilsonInterval(8, 10).lower,
      }))
    `
    const { code, stdout, stderr } = await run(process.execPath, ['--input-type=module', '-e', script])
    expect(stderr).toBe('')
    expect(code).toBe(0)
    const out = JSON.parse(stdout)
    expect(out).toMatchObject({ report: [], stats: [], root: [] })
    expect(out.rootCount).toBeLessThanOrEqual(60)
    // Wilson 95% for 8 of 10: lower bound 0.4902 (Newcombe 1998, Table I).
    expect(out.wilson).toBeCloseTo(0.4902, 4)
  })

  it('the core bundle imports neither vitest nor onnxruntime-node', async () => {
    const { readFile } = await import('node:fs/promises')
    const { join } = await import('node:path')
    const { ROOT } = await import('../helpers/run.ts')
    // Follow the core entry's static imports through the emitted chunks.
    const seen = new Set<string>()
    const queue = [join(ROOT, 'dist/core/index.js')]
    while (queue.length > 0) {
      const file = queue.pop()!
      if (seen.has(file)) continue
      seen.add(file)
      const text = await readFile(file, 'utf8')
      expect(text).not.toMatch(/from ["'](vitest|onnxruntime-node)/)
      for (const [, spec] of text.matchAll(/from ["'](\.{1,2}\/[^"']+)["']/g)) queue.push(join(file, '..', spec!))
    }
    expect(seen.size).toBeGreaterThan(1)
  })
})
