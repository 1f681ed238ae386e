#!/usr/bin/env node
/** The `sceptic` executable: dispatches to a subcommand, prints one line on error, sets the exit code. */
import { EvaluationError } from '../core/support/errors.ts'
import { closest, commandHelp, wantsHelp } from './args.ts'
import { commands, usage } from './commands.ts'
import { UsageError } from './usage-error.ts'

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
  const command = Object.hasOwn(commands, name) ? commands[name] : undefined
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

/** Exit code of a run that ended without `main()` settling: its event loop emptied while a promise never settled. */
const INCOMPLETE_EXIT = 4
/** After `main()` settles, a scorer's stray handle (timer, socket) may not keep the process alive longer than this, in ms. */
const EXIT_GRACE_MS = 2000

// Failing until proven otherwise: a promise that never settles (a scorer that never
// answers) lets the event loop empty and Node exit with process.exitCode, which must
// not be 0 for a run that did not complete.
let settled = false
process.exitCode = INCOMPLETE_EXIT
process.on('exit', () => {
  if (settled) return
  // Also when a scorer called process.exit(0) itself: the run did not complete.
  process.exitCode = INCOMPLETE_EXIT
  process.stderr.write(
    'sceptic: error: the run ended before it completed (a promise never settled, e.g. a scorer that never answers, or a scorer ended the process); nothing more was written. Bound the run with --timeout SECONDS.\n',
  )
})

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
).finally(() => {
  settled = true
  // Everything the command writes is written by now; a handle a scorer left open must not hang the exit.
  setTimeout(() => process.exit(), EXIT_GRACE_MS).unref()
})
