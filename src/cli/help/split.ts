/** `sceptic split`'s usage line, summary and options: what `--help` prints without loading the command. */
import type { CommandHelp } from '../command.ts'

export const splitHelp = {
  usage: 'split DATA --eval-fraction F --train-out FILE --eval-out FILE [--seed N]',
  summary: 'Split a decision file into train and eval JSONL with no group on both sides.',
  /** Every option of `sceptic split`: read by the parser, `--help` and "did you mean". */
  options: {
    'eval-fraction': { type: 'string', value: 'F', description: 'share of groups for the eval side, between 0 and 1 (required)' },
    seed: { type: 'string', value: 'N', default: '0', description: 'seed of the split' },
    'train-out': { type: 'string', value: 'FILE', description: 'where to write the train decisions (required)' },
    'eval-out': { type: 'string', value: 'FILE', description: 'where to write the eval decisions (required)' },
  },
} satisfies CommandHelp
