// A pairwise judge audit (docs/judge-audit.md#pairwise-judges): two candidate answers
// per question and a pinned "Tie" that stays last. The simulated judge reads the
// answers but prefers whichever it is shown first. Under `debias: 'cyclic'` every pair
// is judged in both orders, and the pairwise audit counts the verdicts that follow the
// order instead of the answers (Shi et al., "Judging the Judges", 2024).
import { expect } from 'vitest'
import { describeDecisions } from 'vitest-sceptic'
import judge from '../scorers/pairwise-first-bias.mjs'

const pairs = {
  data: 'data/pairs.jsonl',
  scorer: judge,
  scorerDescription: 'examples/scorers/pairwise-first-bias.mjs',
  debias: 'cyclic',
  baseline: false,
} as const

// Passes: an audit that asserts the primacy bias is caught.
describeDecisions('pairwise judge audit (primacy is caught)', pairs, (result) => {
  const audit = result.pairwise!
  expect(audit.pairs).toBe(12)
  // Clear-cut pairs survive the swap; the close ones follow the order.
  expect(audit.positionConsistency).toBeLessThan(0.9)
  expect(audit.primacy).toBeGreaterThan(0)
  expect(audit.recency).toBe(0)
  expect(audit.preferenceFairness).toBeLessThan(-0.05)
  expect(audit.firstShownRate).toBeGreaterThan(0.6)
})

// Fails on purpose: the gates a judge you rely on must clear, as named tests
// (`positionConsistency ≥ 0.9`, `preferenceFairness in [-0.05, 0.05]`).
// Skipped unless SCEPTIC_DEMO_FAILURE=1, so `npm run eval` stays green.
describeDecisions('pairwise judge held to gates (demo failure)', {
  ...pairs,
  thresholds: { positionConsistency: 0.9, preferenceFairness: { min: -0.05, max: 0.05 } },
  skip: process.env.SCEPTIC_DEMO_FAILURE !== '1',
})
