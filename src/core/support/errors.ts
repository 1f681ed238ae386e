/**
 * Typed errors. Every error a user can cause is an {@link EvaluationError}, so a
 * caller (the CLI, a Vitest hook) can tell "your input is wrong" from "we have a bug"
 * and print one line instead of a stack trace.
 */
import { escapeControl } from './escape.ts'


/** Base class of every error this library raises on purpose. */
export class EvaluationError extends Error {
  override name = 'EvaluationError'
  /** Process exit code the `sceptic` CLI uses for this kind of error. */
  readonly exitCode: number = 1

  /** The message may quote user strings (keys, ids, file names): control characters in it are escaped. */
  constructor(message: string, options?: ErrorOptions) {
    super(escapeControl(message), options)
  }
}

/** An option or setting that cannot work (unknown debias mode, too many permutations, missing model file). */
export class ConfigError extends EvaluationError {
  override name = 'ConfigError'
  override readonly exitCode = 2
}

/** Where a {@link DataError} points: a file, a 1-based line and a field path. */
export interface DataLocation {
  /** File path as given by the caller, or a label such as `<inline>`. */
  readonly file?: string
  /** 1-based line number in that file. */
  readonly line?: number
  /** Dotted field path, e.g. `criterion.options[1].id`. */
  readonly field?: string
}

/** The decisions given cannot be evaluated: a malformed line, a missing field, no labelled row. */
export class DataError extends EvaluationError {
  override name = 'DataError'
  override readonly exitCode = 3
  readonly file: string | undefined
  readonly line: number | undefined
  readonly field: string | undefined

  constructor(message: string, location: DataLocation = {}) {
    super(prefix(location) + message)
    this.file = location.file
    this.line = location.line
    this.field = location.field
  }
}

/** A scorer broke its contract (wrong count, wrong length, negative or non-finite value) or threw. */
export class ScorerError extends EvaluationError {
  override name = 'ScorerError'
  override readonly exitCode = 4
}

function prefix({ file, line, field }: DataLocation): string {
  const where = [file, line].filter((part) => part !== undefined).join(':')
  const parts = [where, field === undefined ? '' : `field "${field}"`].filter(Boolean)
  return parts.length > 0 ? `${parts.join(', ')}: ` : ''
}

/** The first line of a thrown value's message (or of the value itself): what a one-line error quotes of a cause. */
export function firstLineOf(error: unknown): string {
  return String((error as Error)?.message ?? error).split('\n')[0]!
}
