/** The error of a command line that cannot be understood (exit code 2). */
import { escapeControl } from '../core/support/escape.ts'

/** A command line that cannot be understood. Exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError'
  readonly exitCode = 2

  /** The message may quote the command line: control characters in it are escaped. */
  constructor(message: string) {
    super(escapeControl(message))
  }
}
