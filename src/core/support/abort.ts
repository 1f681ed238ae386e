/** Stop waiting when a signal aborts, and abort after a deadline: a scorer that never answers cannot outlive a timeout. */
import { setMaxListeners } from 'node:events'

/** The longest delay one `setTimeout` holds: 2^31 − 1 ms (about 24.8 days); a longer one fires at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1

/**
 * The longest deadline a run accepts: 10^12 ms (about 31.7 years). `--timeout` is refused
 * above 10^9 s and a suite's `timeout` above 10^12 ms, so no arithmetic on it overflows.
 */
export const MAX_DEADLINE_MS = 1e12

/** A signal that never aborts, for calls made without one. */
export const NEVER_ABORTS: AbortSignal = new AbortController().signal

/**
 * Settle like `value`, or reject with `signal.reason` as soon as the signal aborts,
 * whichever comes first. The losing promise is left to settle on its own (its
 * rejection is observed, so it never becomes an unhandled rejection).
 */
export function raceAbort<T>(value: T | PromiseLike<T>, signal: AbortSignal | undefined): Promise<T> {
  const promise = Promise.resolve(value)
  if (!signal) return promise
  if (signal.aborted) {
    promise.catch(() => {})
    return Promise.reject(signal.reason)
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      promise.catch(() => {})
      reject(signal.reason)
    }
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(
      (result) => (signal.removeEventListener('abort', onAbort), resolve(result)),
      (error: unknown) => (signal.removeEventListener('abort', onAbort), reject(error)),
    )
  })
}

/** An abort controller that aborts by itself after a time, with a reason built at that moment. */
export interface Deadline {
  /** Aborts when the time is up (or when `parent` aborts). */
  readonly signal: AbortSignal
  /** Stop the timer (call when the work finished first). */
  clear(): void
}

/**
 * Abort after `ms` milliseconds with the error `reason()` returns then (so it can say
 * how far the work got). The timer holds the process alive until it fires or is
 * cleared: a run waiting on a scorer that never answers still ends on time.
 */
export function deadline(ms: number, reason: () => Error, parent?: AbortSignal): Deadline {
  const controller = new AbortController()
  if (parent?.aborted) {
    controller.abort(parent.reason)
    return { signal: controller.signal, clear: () => {} }
  }
  // setTimeout fires at once past 2^31 − 1 ms: a longer deadline is a chain of shorter timers.
  let timer: ReturnType<typeof setTimeout>
  const arm = (left: number): void => {
    timer = setTimeout(() => (left > MAX_TIMER_MS ? arm(left - MAX_TIMER_MS) : controller.abort(reason())), Math.min(left, MAX_TIMER_MS))
  }
  arm(ms)
  const onParent = () => controller.abort(parent!.reason)
  parent?.addEventListener('abort', onParent, { once: true })
  return {
    signal: controller.signal,
    clear: () => {
      clearTimeout(timer)
      parent?.removeEventListener('abort', onParent)
    },
  }
}

/** A signal that aborts with its parent, and {@link FanOut.release} to detach it when the work is done. */
export interface FanOut {
  readonly signal: AbortSignal
  release(): void
}

/**
 * One listener on `parent` for any number of waiters: Node warns (MaxListenersExceededWarning)
 * past 10 listeners on one signal, and a scorer with 64 requests in flight adds one per request.
 * The waiters listen on the returned signal, which allows any number.
 */
export function fanOut(parent: AbortSignal): FanOut {
  const controller = new AbortController()
  setMaxListeners(0, controller.signal)
  if (parent.aborted) {
    controller.abort(parent.reason)
    return { signal: controller.signal, release: () => {} }
  }
  const onParent = () => controller.abort(parent.reason)
  parent.addEventListener('abort', onParent, { once: true })
  return { signal: controller.signal, release: () => parent.removeEventListener('abort', onParent) }
}
