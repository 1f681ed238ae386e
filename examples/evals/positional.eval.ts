// The pathology the sceptic report exists for: a scorer that answers by slot, not by
// reading. On this set it looks merely "weak" by accuracy; under cyclic debiasing its
// order consistency is 0 and it picks letter A every time.
import { expect } from 'vitest'
import { describeDecisions } from 'vitest-sceptic'
import alwaysFirst from '../scorers/always-first.mjs'

const positional = {
  data: 'data/tickets.jsonl',
  scorer: alwaysFirst,
  scorerDescription: 'examples/scorers/always-first.mjs',
  debias: 'cyclic',
  // Order consistency 0 has nothing to regress from; no baseline for these suites.
  baseline: false,
} as const

// Passes: an audit that asserts the sceptic's checks DO catch the positional scorer.
describeDecisions('positional scorer is caught (audit)', positional, (result) => {
  expect(result).not.toHaveOrderConsistency({ atLeast: 0.5 })
  expect(result.letterDistribution.A).toBe(1)
  expect(result).not.toHaveAccuracyAboveChance({ alpha: 0.05 })
})

// Fails on purpose: the same scorer held to the bars a real model must clear.
// Skipped unless SCEPTIC_DEMO_FAILURE=1, so `npm run eval` stays green:
//   SCEPTIC_DEMO_FAILURE=1 npm run eval
describeDecisions('positional scorer held to thresholds (demo failure)', {
  ...positional,
  thresholds: { balancedAccuracy: 0.7, orderConsistency: 0.8 },
  skip: process.env.SCEPTIC_DEMO_FAILURE !== '1',
})
