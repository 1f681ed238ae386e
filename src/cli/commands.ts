/** The `sceptic` subcommands by name, and the usage text listing them. */
import { cacheCommand } from './commands/cache.ts'
import type { Command } from './command.ts'
import { compareCommand } from './commands/compare.ts'
import { evaluateCommand } from './commands/evaluate.ts'
import { mergeCommand } from './commands/merge.ts'
import { optimizeModelCommand } from './commands/optimize-model.ts'
import { quantizeModelCommand } from './commands/quantize-model.ts'
import { reportCommand } from './commands/report.ts'
import { schemaCommand } from './commands/schema.ts'
import { splitCommand } from './commands/split.ts'

export type { Command } from './command.ts'

/** Every subcommand, by name. Add a command by adding a module under commands/ and a line here. */
export const commands: Record<string, Command> = {
  evaluate: evaluateCommand,
  merge: mergeCommand,
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
  lines.push('', '`sceptic COMMAND --help` lists its options with their defaults; `sceptic --version` prints the version.')
  return lines.join('\n') + '\n'
}
