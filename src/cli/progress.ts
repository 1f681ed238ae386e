/** The CLI's progress line on stderr while a run scores. */
import type { EvaluateProgress } from '../core/evaluate/index.ts'
import { PROGRESS_INTERVAL_MS, progressLine } from '../report/format.ts'

/** Where progress goes: stderr, or a stand-in with the same shape in tests. */
export interface ProgressStream {
  /** True on an interactive terminal (Node sets it on `process.stderr`). */
  readonly isTTY?: boolean
  /** Write text as is. */
  write(text: string): unknown
}

/** A progress display: feed it the evaluator's progress, call `done()` before printing anything else. */
export interface CliProgress {
  /** The evaluator's `onProgress`. */
  update(progress: EvaluateProgress): void
  /** Clear the line (on a terminal). Idempotent. */
  done(): void
}

/**
 * Progress of `sceptic evaluate` on stderr: `DATA: 120/560 decisions scored · 41.3/s ·
 * ETA 11s`, in the Vitest layer's format, at most one update per interval. On a
 * terminal one line is rewritten in place and cleared at the end; nothing is written
 * when stderr is not a terminal, unless `SCEPTIC_PROGRESS=1` (plain lines then).
 * `SCEPTIC_PROGRESS=0` turns it off.
 */
export function cliProgress(
  label: string,
  stream: ProgressStream = process.stderr,
  env: NodeJS.ProcessEnv = process.env,
  now: () => number = () => Date.now(),
  interval = PROGRESS_INTERVAL_MS,
): CliProgress {
  const tty = stream.isTTY === true && env.TERM !== 'dumb'
  const enabled = env.SCEPTIC_PROGRESS === '1' || (env.SCEPTIC_PROGRESS !== '0' && tty)
  const started = now()
  let last = started
  let shown = false
  return {
    update({ scored, total }) {
      const t = now()
      if (!enabled || scored >= total || t - last < interval) return
      last = t
      const line = progressLine({ suite: label, scored, total, elapsedMs: t - started })
      stream.write(tty ? `\r\x1b[2K${line}` : `${line}\n`)
      shown = true
    },
    done() {
      if (shown && tty) stream.write('\r\x1b[2K')
      shown = false
    },
  }
}
