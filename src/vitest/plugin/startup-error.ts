/**
 * Errors the plugin raises while Vitest starts (a bad option, a missing model directory)
 * print as one line: Vitest shows a startup error's stack and own properties, which for
 * a user's mistake are ten lines of Vitest internals around the one that matters.
 */
import { EvaluationError } from '../../core/support/errors.ts'

/** `error` with its stack cut to its first line and its fields hidden, when it is one of ours; else as is. */
export function startupError(error: unknown): unknown {
  if (!(error instanceof EvaluationError)) return error
  const line = `${error.name}: ${error.message.split('\n')[0]}`
  Object.defineProperty(error, 'stack', { value: line, configurable: true, writable: true })
  for (const key of Object.keys(error)) Object.defineProperty(error, key, { enumerable: false })
  return error
}

/** Run `body`, rethrowing our errors as {@link startupError}s. */
export function atStartup<T>(body: () => T): T {
  try {
    return body()
  } catch (error) {
    throw startupError(error)
  }
}
