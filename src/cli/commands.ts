import { cacheCommand } from './commands/cache.ts'
import { compareCommand } from './commands/compare.ts'
import { evaluateCommand } from './commands/evaluate.ts'
import { optimizeModelCommand } from './commands/optimize-model.ts'
import { quantizeModelCommand } from './commands/quantize-model.ts'
import { reportCommand } from './commands/report.ts'
import { schemaCommand } from './commands/schema.ts'
import { splitCommand } from './commands/split.ts'

/** A `sceptic` subcommand: parses its own arguments, returns the exit code. */
export interface Command {
  /** One usage line, e.g. `evaluate DATA (--model DIR | --scorer MODULE) ...`. */
  readonly usage: string
  /** One sentence on what it does. */
  readonly summary: string
  run(argv: string[]): Promise<number>
}

/** A command line that cannot be understood. Exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError'
  readonly exitCode = 2
}

/** Every subcommand, by name. Add a command by adding a module under commands/ and a line here. */
export const commands: Record<string, Command> = {
  evaluate: evaluateCommand,
  compare: compareCommand,
  split: splitCommand,
  report: reportCommand,
  schema: schemaCommand,
  'optimize-model': optimizeModelCommand,
  'quantize-model': quantizeModelCommand,
  cache: cacheCommand,
}

export function usage(): string {
  const lines = ['usage: sceptic COMMAND [options]', '']
  for (const [name, command] of Object.entries(commands)) lines.push(`  sceptic ${command.usage}`, `      ${command.summary}`)
  return lines.join('\n') + '\n'
}
