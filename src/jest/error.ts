/**
 * Errors as Jest prints them: one line of message, no stack frame from this package, and a
 * first frame in the user's code, whose code frame Jest shows: a scorer's error at the
 * scorer's own throwing line, every other failure at the user's `describeDecisions(...)` call
 * (the rule and its frames: src/suite/user-frame.ts).
 */
import { atCallSite } from './decide.ts'

/** An error for `message` pointing at `site`, the user's `describeDecisions` call. */
export function failureAt(message: string, site: string | undefined): Error {
  return atCallSite(new Error(message), site)
}

/** A scoring failure as one line (the class name kept), at the thrown error's own frames outside this package, else at `site`. */
export function scoringFailure(error: unknown, site: string | undefined): Error {
  const e = error as (Error & { cause?: unknown }) | undefined
  const message = (e?.message ?? String(error)).split('\n')[0]!
  const failure = new Error(message)
  failure.name = e?.name && e.name !== 'Error' ? e.name : 'Error'
  // The frames of the innermost cause: where the scorer itself threw.
  let origin: unknown = error
  while ((origin as { cause?: unknown } | undefined)?.cause instanceof Error) origin = (origin as { cause: Error }).cause
  const frames = ((origin as Error | undefined)?.stack ?? '').split('\n').filter((line) => /^\s+at /.test(line))
  // An error without frames (one built from a message) still gets the call site.
  failure.stack = [`${failure.name}: ${message}`, ...(frames.length > 0 || site === undefined ? frames : [site])].join('\n')
  return atCallSite(failure, site)
}
