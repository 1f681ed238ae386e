import { describe, expect, it } from 'vitest'
import { githubAnnotations, githubSummary, type GitHubSuite } from '../../src/report/github.ts'
import { escapeData, escapeProperty } from '../../src/report/escape.ts'

const result = {
  accuracy: 0.5,
  balancedAccuracy: 0.62,
  orderConsistency: 0.4,
  circularAccuracy: null,
  orderingAccuracy: null,
  accuracyByGoldSlot: null,
  slotSensitivityGap: null,
  slotBias: null,
  ckld: null,
  pairwise: null,
  ece: 0.1,
  brier: 0.5,
  perCriterion: { queue: 0.7, refund: 0.54 },
  letterDistribution: { A: 0.7, B: 0.3 },
  n: 20,
  score: 0.5,
  metrics: {},
  failed: 1,
  failures: [],
  manifest: { debias: 'cyclic', orderingsScored: 2, chance: 0.5, unlabelledSkipped: 2 } as never,
}

// One of 21 decisions failed: within the suites' maxFailureRate.
const passing: GitHubSuite = { suite: 'reader', file: 'evals/reader.eval.ts', thresholds: { balancedAccuracy: 0.6 }, maxFailureRate: 0.1, result }
const failing: GitHubSuite = {
  suite: 'positional | judge',
  maxFailureRate: 0.1,
  file: 'evals/judge,v2.eval.ts',
  thresholds: { balancedAccuracy: 0.6, orderConsistency: 0.8, perCriterion: 0.6 },
  result,
  baseline: { pass: false, message: 'order consistency fell from 90.0% to 40.0%: 10 decisions worse, 0 better, p = 0.001' },
}

describe('GitHub Actions output', () => {
  it('summary: one table per suite with bounds and marks', () => {
    const md = githubSummary([passing, failing])
    expect(md).toContain('### ✅ reader')
    expect(md).toContain('### ❌ positional \\| judge')
    expect(md).toContain('| balanced accuracy | **62.0%** | ≥ 60.0% | ✅ |')
    expect(md).toContain('| order consistency | **40.0%** | ≥ 80.0% | ❌ |')
    expect(md).toContain('| worst criterion (balanced accuracy) | 54.0% | ≥ 60.0% | ❌ |')
    expect(md).toContain('| decisions | 20 (2 unlabelled skipped), 1 failed |  |  |')
    expect(md).toContain('❌ **baseline:** order consistency fell from 90.0% to 40.0%')
  })

  it('annotations: an ::error per failed check, pointing at the eval file, escaped', () => {
    const lines = githubAnnotations([passing, failing, { suite: 'broken', file: 'evals/x.eval.ts', thresholds: {}, error: 'ScorerError: 50% of\nrequests failed' }])
    // `%` is escaped as %25 in the message: GitHub decodes it back.
    expect(lines).toEqual([
      '::error file=evals/judge%2Cv2.eval.ts,title=positional | judge > orderConsistency ≥ 0.8::order consistency 40.0%25 is below the bound 80.0%25; letters picked A:70%25 B:30%25',
      '::error file=evals/judge%2Cv2.eval.ts,title=positional | judge > perCriterion ≥ 0.6::worst criterion (balanced accuracy) 54.0%25 is below the bound 60.0%25; letters picked A:70%25 B:30%25',
      '::error file=evals/judge%2Cv2.eval.ts,title=positional | judge > order consistency vs baseline::order consistency fell from 90.0%25 to 40.0%25: 10 decisions worse, 0 better, p = 0.001',
      '::error file=evals/x.eval.ts,title=broken%3A scoring failed::ScorerError: 50%25 of%0Arequests failed',
    ])
  })

  it('escapes workflow command data and properties as the GitHub toolkit does', () => {
    expect(escapeData('a%b\r\nc')).toBe('a%25b%0D%0Ac')
    expect(escapeProperty('a:b,c')).toBe('a%3Ab%2Cc')
  })
})
