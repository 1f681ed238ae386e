/** What every `sceptic` subcommand is (its interface) and the error for a command line it cannot understand. */
import { escapeControl } from '../core/escape.ts'

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

  /** The message may quote the command line: control characters in it are escaped. */
  constructor(message: string) {
    super(escapeControl(message))
  }
}
