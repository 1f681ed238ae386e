import { describe, expect, it } from 'vitest'
import { run } from '../helpers/run.ts'

// The published entry points, as a user's Node resolves them (package self-reference to dist/).
describe('package exports', () => {
  it('vitest-sceptic/core gives the documented API without loading vitest or onnxruntime', async () => {
    const script = `
      const core = await import('vitest-sceptic/core')
      const names = ['loadDecisions', 'evaluateWithScorer', 'orderings', 'DEBIAS_MODES', 'render', 'groupSplit',
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
