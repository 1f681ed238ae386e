/** `sceptic compare`'s usage line, summary and options: what `--help` prints without loading the command. */
import { MAX_RESAMPLES } from '../../core/math/bootstrap.ts'
import type { CommandHelp } from '../command.ts'

export const compareHelp = {
  usage: 'compare A B [--data DATA] [--seed N] [--resamples N] [--json-out FILE]',
  summary: 'Paired comparison of two runs on the same decisions: 2×2 table, exact McNemar, bootstrap interval of the change.',
  /** Every option of `sceptic compare`: read by the parser, `--help` and "did you mean". */
  options: {
    data: { type: 'string', value: 'DATA', description: 'the decision file, for group_ids: the bootstrap resamples whole groups' },
    seed: { type: 'string', value: 'N', default: '0', description: 'bootstrap seed' },
    resamples: { type: 'string', value: 'N', description: `bootstrap resamples, at most ${MAX_RESAMPLES} (default: 2000, fewer above 10,000 decisions)` },
    'json-out': { type: 'string', value: 'FILE', description: 'write the comparison as JSON' },
  },
} satisfies CommandHelp
