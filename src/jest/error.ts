/**
 * Errors as Jest prints them: one line of message and no stack frame from this package, so
 * a scorer's error shows the scorer's own lines (where the user can act) and nothing else.
 */

/**
 * This package's own files: the folder holding its `dist/` (or, where a source map maps a
 * frame back, its `src/`), from where this code runs. Frames under either are dropped.
 */
const OWN_ROOTS = ((): string[] => {
  const frame = (new Error().stack ?? '').split('\n').find((line) => /^\s+at /.test(line))
  const path = frame && /(?:\(|at )(?:file:\/\/)?(\/[^:()]+):\d+:\d+\)?$/.exec(frame)?.[1]
  const at = path ? Math.max(path.lastIndexOf('/dist/'), path.lastIndexOf('/src/')) : -1
  return path && at >= 0 ? [`${path.slice(0, at)}/dist/`, `${path.slice(0, at)}/src/`] : []
})()

/** Whether a stack line is one of this package's frames or Node's internals. */
function ownFrame(line: string): boolean {
  return OWN_ROOTS.some((root) => line.includes(root)) || /\(node:|at node:/.test(line)
}

/** `error` with its stack reduced to its first line and the frames that are not this package's. */
export function ownFramesRemoved<E extends Error>(error: E, frames: string | undefined = undefined): E {
  const header = `${error.name}: ${error.message}`
  const lines = (frames ?? '').split('\n').filter((line) => /^\s+at /.test(line) && !ownFrame(line))
  error.stack = [header, ...lines].join('\n')
  return error
}

/** A scoring failure as one line (the class name kept), with the thrown error's own frames outside this package. */
export function scoringFailure(error: unknown): Error {
  const e = error as (Error & { cause?: unknown }) | undefined
  const message = (e?.message ?? String(error)).split('\n')[0]!
  const failure = new Error(message)
  failure.name = e?.name && e.name !== 'Error' ? e.name : 'Error'
  // The frames of the innermost cause: where the scorer itself threw.
  let origin: unknown = error
  while ((origin as { cause?: unknown } | undefined)?.cause instanceof Error) origin = (origin as { cause: Error }).cause
  return ownFramesRemoved(failure, (origin as Error | undefined)?.stack)
}
