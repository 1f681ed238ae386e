// An LLM-as-judge audit (docs/judge-audit.md): a judge grading answers A–E is a
// fixed-order multiple-choice reader, so the same machinery asks whether its verdict
// survives reordering the grades. This simulated judge reads the answer but carries a
// first-slot bonus: it agrees with the human grades, and still lets the grade order
// decide some verdicts. A verdict that flips on reordering is not a measurement.
import { expect } from 'vitest'
import { describeDecisions } from 'vitest-sceptic'
import judge from '../scorers/judge-first-bias.mjs'

describeDecisions(
  'LLM judge audit (first-slot bias is caught)',
  { data: 'data/judge.jsonl', scorer: judge, scorerDescription: 'examples/scorers/judge-first-bias.mjs', debias: 'cyclic', baseline: false },
  (result) => {
    // It agrees with the human grades...
    expect(result).toHaveBalancedAccuracy({ atLeast: 0.8 })
    // ...and still lets the grade order decide some verdicts, which the audit must see.
    expect(result).not.toHaveOrderConsistency({ atLeast: 0.9 })
    expect(result.letterDistribution.A).toBeGreaterThan(0.2)
  },
)
