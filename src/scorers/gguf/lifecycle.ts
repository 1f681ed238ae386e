/**
 * The lifecycle both GGUF scorers share: nothing loads until the first call or `ready()`, calls
 * run one after another (a context's sequences hold one call's prompts at a time), and `close()`
 * lets the call in flight finish, stops a startup still under way, then frees the model.
 */
import type { ConfigError } from '../../core/support/errors.ts'
import { ScorerError } from '../../core/support/errors.ts'

/** What `ready()` resolves to. */
export interface GgufModelInfo {
  /** The file's `general.architecture`. */
  readonly architecture: string
  /** The model's trained context, in tokens. */
  readonly trainContext: number
  /** Its vocabulary size. */
  readonly vocab: number
}

/** What both GGUF scorers offer beside scoring. */
export interface GgufLifecycle {
  /** Load node-llama-cpp, the model and its context (done on the first call anyway). Rejects with a one-line {@link ConfigError} for a file it cannot use. */
  ready(): Promise<GgufModelInfo>
  /** Let a call in flight finish, then free the model. Idempotent; later calls reject. */
  close(): Promise<void>
}

/** A GGUF scorer's startup: given where to hand what frees it, and a signal `close()` aborts. */
export type Start<S> = (onDispose: (dispose: () => Promise<void>) => void, signal: AbortSignal) => Promise<S>

/** `ready`, serial `call`s and `close` around `start`; `name` is the scorer's in its errors (`GGUF scorer`). */
export function lifecycle<S>(start: Start<S>, name: string): { ready: () => Promise<S>; call: <T>(run: (started: S) => Promise<T>) => Promise<T>; close: () => Promise<void> } {
  let startup: Promise<S> | undefined
  let dispose: (() => Promise<void>) | undefined
  let closed = false
  let inFlight: Promise<unknown> = Promise.resolve()
  // Aborted by close(): a startup stuck in a runaway chat template ends now, not at the template's time limit.
  const closing = new AbortController()
  const ready = () =>
    (startup ??= start((d) => (dispose = d), closing.signal).catch(async (error: unknown) => {
      await dispose?.()
      throw error
    }))
  const call = <T>(run: (started: S) => Promise<T>): Promise<T> => {
    if (closed) return Promise.reject(new ScorerError(`the ${name} is closed; create a new one to score again`))
    const next = inFlight.then(() => ready().then(run))
    inFlight = next.catch(() => undefined)
    return next
  }
  const close = async (): Promise<void> => {
    if (closed) return
    closed = true
    closing.abort(new ScorerError(`the ${name} was closed while it was starting`))
    await inFlight
    if (startup) await startup.catch(() => undefined)
    await dispose?.()
    dispose = undefined
  }
  return { ready, call, close }
}
