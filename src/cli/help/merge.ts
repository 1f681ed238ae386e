/** `sceptic merge`'s usage line, summary and options: what `--help` prints without loading the command. */
import type { CommandHelp } from '../command.ts'

export const mergeHelp = {
  usage: 'merge PART.records.jsonl ... [--json-out FILE] [--records-out FILE] [--threshold KEY=VALUE ...] [--max-failure-rate R]',
  summary: 'Merge the parts of a sharded `evaluate --shard i/n` run into the report, JSON and records of the whole run.',
  /** Every option of `sceptic merge`: read by the parser, `--help` and "did you mean". */
  options: {
    'json-out': { type: 'string', value: 'FILE', description: 'write the merged result as JSON' },
    'records-out': { type: 'string', value: 'FILE', description: 'write the merged records as JSONL' },
    threshold: { type: 'string', multiple: true, value: 'KEY=VALUE', description: 'gate the merged run on a metric, as evaluate --threshold; exit 1 when the gate fails' },
    'max-failure-rate': { type: 'string', value: 'R', description: 'with --threshold: the share of labelled decisions that may fail to score, in [0, 1] (default 0)' },
  },
} satisfies CommandHelp
