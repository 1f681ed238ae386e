/** The `sceptic` subcommands by name, and the usage text listing them. */
import type { Command, CommandHelp } from './command.ts'
import { cacheHelp } from './help/cache.ts'
import { compareHelp } from './help/compare.ts'
import { evaluateHelp } from './help/evaluate.ts'
import { mergeHelp } from './help/merge.ts'
import { optimizeModelHelp } from './help/optimize-model.ts'
import { quantizeModelHelp } from './help/quantize-model.ts'
import { reportHelp } from './help/report.ts'
import { schemaHelp } from './help/schema.ts'
import { splitHelp } from './help/split.ts'

export type { Command } from './command.ts'

/** A command whose module (and all it imports) loads only when it runs: `--help` reads its help alone. */
function lazy(help: CommandHelp, load: () => Promise<Command>): Command {
  return { ...help, run: async (argv) => (await load()).run(argv) }
}

/** Every subcommand, by name. Add a command by adding its help under help/, its module under commands/ and a line here. */
export const commands: Record<string, Command> = {
  evaluate: lazy(evaluateHelp, async () => (await import('./commands/evaluate.ts')).evaluateCommand),
  merge: lazy(mergeHelp, async () => (await import('./commands/merge.ts')).mergeCommand),
  compare: lazy(compareHelp, async () => (await import('./commands/compare.ts')).compareCommand),
  split: lazy(splitHelp, async () => (await import('./commands/split.ts')).splitCommand),
  report: lazy(reportHelp, async () => (await import('./commands/report.ts')).reportCommand),
  schema: lazy(schemaHelp, async () => (await import('./commands/schema.ts')).schemaCommand),
  'optimize-model': lazy(optimizeModelHelp, async () => (await import('./commands/optimize-model.ts')).optimizeModelCommand),
  'quantize-model': lazy(quantizeModelHelp, async () => (await import('./commands/quantize-model.ts')).quantizeModelCommand),
  cache: lazy(cacheHelp, async () => (await import('./commands/cache.ts')).cacheCommand),
}

export function usage(): string {
  const lines = ['usage: sceptic COMMAND [options]', '']
  for (const command of Object.values(commands)) lines.push(`  sceptic ${command.usage}`, `      ${command.summary}`)
  lines.push('', '`sceptic COMMAND --help` lists its options with their defaults; `sceptic --version` prints the version.')
  return lines.join('\n') + '\n'
}
