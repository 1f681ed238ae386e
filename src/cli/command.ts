/** What every `sceptic` subcommand is: the shape `commands.ts` lists and `main.ts` runs. */
import type { OptionTable } from './args.ts'

/** What `--help` shows of a subcommand, readable without loading the code that runs it. */
export interface CommandHelp {
  /** One usage line, e.g. `evaluate DATA (--model DIR | --scorer MODULE) ...`. */
  readonly usage: string
  /** One sentence on what it does. */
  readonly summary: string
  /** Its options, declared once: the parser, `--help` and "did you mean" read this table. */
  readonly options: OptionTable
}

/** A `sceptic` subcommand: parses its own arguments, returns the exit code. */
export interface Command extends CommandHelp {
  run(argv: string[]): Promise<number>
}
