// A scorer that reads the evidence. It should clear every bar: balanced accuracy
// well above chance, the same answer whichever slot the right option sits in, and a
// letter histogram that follows where the answers are, not slot A.
import { expect } from 'vitest'
import { describeDecisions } from 'vitest-sceptic'
import keywordReader from '../scorers/keyword-reader.mjs'

describeDecisions(
  'support triage (keyword reader)',
  {
    data: 'data/tickets.jsonl', // relative to the Vitest root (examples/)
    scorer: keywordReader,
    scorerDescription: 'examples/scorers/keyword-reader.mjs',
    debias: 'cyclic',
    thresholds: { balancedAccuracy: 0.8, orderConsistency: 0.9, perCriterion: 0.8 },
  },
  (result) => {
    expect(result).toHaveAccuracyAboveChance({ alpha: 0.01 })
    // Stored in evals/__snapshots__/support-triage.eval.ts.snap; `vitest -u` refreshes it.
    expect(result.letterDistribution).toMatchLetterDistribution({ tolerance: 0.05 })
  },
)
