#!/usr/bin/env node
import { EvaluationError } from '../core/errors.ts'
import { closest, commandHelp, wantsHelp } from './args.ts'
import { commands, usage, UsageError } from './commands.ts'

/**
 * `sceptic COMMAND ...`. Every error a user can cause prints one line and exits
 * non-zero (2 usage/config, 3 data, 4 scorer); only a bug prints a stack trace.
 */
async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv
  if (name === 'help' && rest[0] !== undefined && commands[rest[0]]) {
    process.stdout.write(commandHelp(commands[rest[0]]!))
    return 0
  }
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(usage())
    return name === undefined ? 2 : 0
  }
  if (name === '--version' || name === '-v') {
    const { default: pkg } = await import('../../package.json', { with: { type: 'json' } })
    process.stdout.write(`${pkg.version}\n`)
    return 0
  }
  const command = commands[name]
  if (!command) {
    const near = closest(name, Object.keys(commands))
    throw new UsageError(`unknown command "${name}"${near ? ` (did you mean "${near}"?)` : ''}; commands: ${Object.keys(commands).join(', ')}`)
  }
  if (wantsHelp(rest)) {
    process.stdout.write(commandHelp(command))
    return 0
  }
  return command.run(rest)
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code
  },
  (error: unknown) => {
    if (error instanceof UsageError || error instanceof EvaluationError) {
      process.stderr.write(`sceptic: ${error.name === 'Error' ? 'error' : error.name}: ${error.message}\n`)
      process.exitCode = error instanceof EvaluationError ? error.exitCode : 2
      return
    }
    process.stderr.write(`sceptic: unexpected error (a bug; please report it):\n${(error as Error)?.stack ?? String(error)}\n`)
    process.exitCode = 1
  },
)
