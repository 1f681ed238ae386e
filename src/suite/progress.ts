/**
 * Scoring progress: decisions scored / total, rate and ETA
 * while a long suite scores, on an interactive terminal only. Suites score inside
 * test workers, whose stdout is a pipe, so a worker cannot tell whether a person is
 * watching: the plugin decides in the main process and tells workers through
 * `inject('sceptic').progress`. Workers send progress as console lines with a
 * marker; the plugin hides those lines from other reporters (`onConsoleLog`) and the
 * sceptic reporter prints them.
 */
import type { EvaluateProgress } from '../core/index.ts'
import { formatDuration, PROGRESS_INTERVAL_MS, progressLine, type ProgressFacts } from '../report/format.ts'

export { formatDuration, PROGRESS_INTERVAL_MS }

/** Marker at the start of a progress console line. */
export const PROGRESS_MARKER = '[vitest-sceptic:progress] '

/** One progress event, as sent from a worker. */
export interface ProgressEvent extends ProgressFacts {}

/**
 * A worker-side `onProgress` callback that logs at most one marked line per
 * {@link PROGRESS_INTERVAL_MS}, never the last one (the report follows soon).
 */
export function progressEmitter(
  suite: string,
  log: (line: string) => void = (line) => console.log(line),
  now: () => number = () => Date.now(),
  interval = PROGRESS_INTERVAL_MS,
): (progress: EvaluateProgress) => void {
  const started = now()
  let last = started
  return ({ scored, total }) => {
    const t = now()
    if (scored >= total || t - last < interval) return
    last = t
    const event: ProgressEvent = { suite, scored, total, elapsedMs: t - started }
    log(PROGRESS_MARKER + JSON.stringify(event))
  }
}

/** Parse a console line into a progress event, or `undefined` when it is not one. */
export function parseProgress(content: string): ProgressEvent | undefined {
  if (!content.startsWith(PROGRESS_MARKER)) return undefined
  try {
    const event = JSON.parse(content.slice(PROGRESS_MARKER.length)) as ProgressEvent
    return typeof event.suite === 'string' && typeof event.scored === 'number' ? event : undefined
  } catch {
    return undefined
  }
}

/** `support triage: 120/560 decisions scored · 41.3/s · ETA 11s` (the one progress line). */
export const formatProgress: (event: ProgressEvent) => string = progressLine

/**
 * Whether this process talks to a person: stdout is a terminal and no CI variable is
 * set. `SCEPTIC_PROGRESS=1` / `=0` forces it either way.
 */
export function interactiveTerminal(env: NodeJS.ProcessEnv = process.env, stdout: { isTTY?: boolean } = process.stdout): boolean {
  if (env.SCEPTIC_PROGRESS === '1') return true
  if (env.SCEPTIC_PROGRESS === '0') return false
  const ci = ['CI', 'CONTINUOUS_INTEGRATION', 'BUILD_NUMBER', 'RUN_ID', 'GITHUB_ACTIONS', 'GITLAB_CI', 'BUILDKITE', 'TF_BUILD'].some(
    (name) => env[name] !== undefined && env[name] !== '' && env[name] !== 'false' && env[name] !== '0',
  )
  return stdout.isTTY === true && !ci && env.TERM !== 'dumb'
}
