/** `sceptic cache`'s usage line, summary and options: what `--help` prints without loading the command. */
import type { CommandHelp } from '../command.ts'

export const cacheHelp = {
  usage: 'cache (stats [DIR] | clear [DIR] [--model DIR] [--scorer DESCRIPTION] [--older-than DAYS])',
  summary: 'Show what the score cache holds (entries, size, models), or clear it, whole or for one model.',
  /** Every option of `sceptic cache`: read by the parser, `--help` and "did you mean". */
  options: {
    model: { type: 'string', value: 'DIR', description: 'with clear: remove only the entries of this model directory' },
    scorer: { type: 'string', value: 'DESCRIPTION', description: 'with clear: remove only the entries of this scorer (its description, as cache stats lists it)' },
    'older-than': { type: 'string', value: 'DAYS', description: 'with clear: remove only entries last written more than DAYS days ago' },
  },
} satisfies CommandHelp
