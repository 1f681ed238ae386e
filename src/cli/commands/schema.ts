/** `sceptic schema`. */
import { decisionJsonSchema } from '../../core/decisions/schema.ts'
import { parse } from '../args.ts'
import type { Command } from '../command.ts'

const USAGE = 'schema'

/** `sceptic schema`: print the JSON Schema of a decision line. */
export const schemaCommand: Command = {
  usage: USAGE,
  options: {},
  summary: 'Print the JSON Schema of one decision line (for editors and other validators).',
  async run(argv) {
    parse(argv, {}, USAGE)
    process.stdout.write(JSON.stringify(decisionJsonSchema(), null, 2) + '\n')
    return 0
  },
}
