/** `sceptic schema`'s usage line, summary and options: what `--help` prints without loading the command. */
import type { CommandHelp } from '../command.ts'

export const schemaHelp = {
  usage: 'schema',
  summary: 'Print the JSON Schema of one decision line (for editors and other validators).',
  options: {},
} satisfies CommandHelp
