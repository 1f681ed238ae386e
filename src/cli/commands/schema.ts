/** `sceptic schema`. */
import { decisionJsonSchema } from '../../core/decisions/schema.ts'
import { parse } from '../args.ts'
import type { Command } from '../command.ts'
import { schemaHelp } from '../help/schema.ts'

const { usage: USAGE } = schemaHelp

/** `sceptic schema`: print the JSON Schema of a decision line. */
export const schemaCommand: Command = {
  ...schemaHelp,
  async run(argv) {
    parse(argv, {}, USAGE)
    process.stdout.write(JSON.stringify(decisionJsonSchema(), null, 2) + '\n')
    return 0
  },
}
