// Two decision models the project trained itself (scripts/train/train.py; weights in
// models/weights, written to ONNX as models/reader and models/biased by
// scripts/make-trained-models.mjs, which `npm run eval` runs first). Same architecture, same
// ticket texts; only their training labels differed:
// - the reader learned every cue, clear ("charged twice") and subtle ("the statement");
// - the biased reader was trained on labels where unclear tickets had been filed by slot,
//   mostly the first: it reads clear tickets and answers unclear ones by position.
// data/triage-heldout.jsonl is held out: 60 clear tickets, 20 unclear ones (group_id says which).
import { expect } from 'vitest'
import { describeDecisions, sharedModel } from 'vitest-sceptic'

const triage = {
  data: 'data/triage-heldout.jsonl',
  debias: 'cyclic',
  // The bars a triage model must clear.
  thresholds: { balancedAccuracy: 0.8, orderConsistency: 0.9 },
  baseline: false,
  timeout: 5 * 60_000,
} as const

// Passes: the reader answers by content, whatever the order of the options.
describeDecisions('support triage (trained reader)', { ...triage, scorer: sharedModel('reader') }, (result) => {
  expect(result.failed).toBe(0)
  expect(result).toHaveAccuracyAboveChance({ alpha: 0.01 })
})

// Passes: an audit asserting the sceptic's checks catch the biased reader. Its accuracy still
// looks fine (it reads the clear tickets); order consistency and the letters it picks give it away.
describeDecisions('biased reader is caught (audit)', { ...triage, thresholds: {}, scorer: sharedModel('biased') }, (result) => {
  expect(result).toHaveAccuracyAboveChance({ alpha: 0.01 })
  expect(result).not.toHaveOrderConsistency({ atLeast: 0.9 })
  expect(result.letterDistribution.A).toBeGreaterThan(0.35)
})

// Fails on purpose: the biased reader held to the reader's bars fails orderConsistency by name.
// Skipped unless SCEPTIC_DEMO_FAILURE=1, so `npm run eval` stays green:
//   SCEPTIC_DEMO_FAILURE=1 npm run eval
describeDecisions('biased reader held to thresholds (demo failure)', {
  ...triage,
  scorer: sharedModel('biased'),
  skip: process.env.SCEPTIC_DEMO_FAILURE !== '1',
})
