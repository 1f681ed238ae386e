/**
 * A fixed set of inference workers on one model. Jobs (batches to score, prompts to
 * tokenize) go to whichever worker is free. A worker that dies is replaced and its batch retried once; a batch
 * that kills two workers fails. `close()` lets queued and running batches finish
 * before the workers exit: terminating a worker inside `session.run` aborts the
 * whole process (SIGABRT), so workers are only ever terminated when idle.
 */
import { existsSync } from 'node:fs'
import { Worker } from 'node:worker_threads'
import { ConfigError, ScorerError } from '../../../core/support/errors.ts'
import type { InputPlan } from '../model/model-io.ts'
import type { Encoded, EncodeMessage, JobPayload, LoadMessage, PrepackSave, RunMessage, TokenizerInfo, WorkerInit, WorkerMessage } from './protocol.ts'
import { keepOrtTelemetryOff } from './ort-telemetry.ts'

/** What the workers start with; the model may still be coming (the letter head being written), and they start meanwhile. */
export type PoolInit = Omit<WorkerInit, 'modelPath'> & { readonly modelPath: string | Promise<ModelLoad> }

/** The graph to load, and where the first worker saves it with its packed weights (prepack-cache.ts). */
export interface ModelLoad {
  readonly path: string
  readonly save?: PrepackSave
}

/** One job, as the worker needs it, plus how to name it in errors. */
export interface Job<P> {
  readonly payload: P
  /** Human-readable list of the requests in the job, for error messages. */
  readonly describe: () => string
  /** Set by the caller when the rest of its call failed: a queued job is then dropped. */
  readonly cancel?: { cancelled: boolean }
}

interface QueuedJob extends Job<JobPayload> {
  attempts: number
  resolve(result: Float64Array | Encoded): void
  reject(error: Error): void
}

/** What every worker reports once loaded: the model's inputs and outputs, and its tokenizer. */
export interface PoolReady {
  /** What the model takes and returns. */
  readonly plan: InputPlan
  /** The tokenizer the workers loaded. */
  readonly tokenizer: TokenizerInfo
  /** The first worker saved its graph with its packed weights, when asked to ({@link ModelLoad.save}). */
  readonly saved?: boolean
}

interface Slot {
  readonly worker: Worker
  ready: boolean
  job: QueuedJob | undefined
  jobId: number
  exitCode: number | undefined
  lastError: Error | undefined
  stopping: boolean
  readonly exited: Promise<number>
}

/** Give up waiting for an idle worker to leave on its own after this long, then terminate it. */
const EXIT_GRACE_MS = 10_000

/** Where the built worker script is: next to the entry, or next to a shared chunk (tsup splitting puts chunks in dist/). */
export function resolveWorkerUrl(): URL {
  return resolveWorkerFile('worker.js')
}

/** A built worker script of dist/onnx/ (`worker.js`, `template-worker.js`), found from wherever this module was bundled. */
export function resolveWorkerFile(name: string): URL {
  for (const relative of [`./${name}`, `./onnx/${name}`, `../onnx/${name}`, `../../../../dist/onnx/${name}`]) {
    const url = new URL(relative, import.meta.url)
    if (existsSync(url)) return url
  }
  throw new ConfigError(`the ONNX worker script (dist/onnx/${name}) is missing: build the package (\`npx tsup\`) first`)
}

/** The pool. Start it, run jobs, close it. */
export class WorkerPool {
  private readonly slots = new Set<Slot>()
  private readonly queue: QueuedJob[] = []
  private accepting = true
  private broken: Error | undefined
  private nextJobId = 1
  private idleWaiters: (() => void)[] = []
  /** Calls in progress ({@link begin}): close() waits for them, and they may queue jobs while it does. */
  private calls = 0
  /** Workers started over the pool's life, replacements included. */
  spawned = 0

  constructor(
    private readonly size: number,
    private readonly init: PoolInit,
    private readonly workerUrl: URL = resolveWorkerUrl(),
  ) {}

  /** Start every worker and wait until each has loaded the model and the tokenizer. Rejects with the first load error. */
  async start(): Promise<PoolReady> {
    const started = await Promise.allSettled(Array.from({ length: this.size }, () => this.spawn()))
    const failure = started.find((result) => result.status === 'rejected')
    if (failure) {
      await this.stopAll()
      throw failure.reason
    }
    // The first worker's: the one that saves packed weights when asked to.
    return (started[0] as PromiseFulfilledResult<PoolReady>).value
  }

  /** Live workers (for tests: an idle one may be terminated to simulate a crash). */
  get workers(): Worker[] {
    return [...this.slots].map((slot) => slot.worker)
  }

  /** Queue a batch; resolves with the probabilities of its rows, concatenated. */
  run(job: Job<Omit<RunMessage, 'type' | 'id'>>): Promise<Float64Array> {
    return this.enqueue({ ...job, payload: { type: 'run', ...job.payload } }) as Promise<Float64Array>
  }

  /** Queue texts to tokenize; resolves with their ids and letter ids. */
  encode(job: Job<Omit<EncodeMessage, 'type' | 'id'>>): Promise<Encoded> {
    return this.enqueue({ ...job, payload: { type: 'encode', ...job.payload } }) as Promise<Encoded>
  }

  /**
   * Start a call that queues jobs in several steps (tokenize, then run): until the
   * returned release is called, close() waits and the call may still queue jobs.
   * Throws a ScorerError when the pool is closing.
   */
  begin(): () => void {
    if (!this.accepting) throw new ScorerError('the ONNX scorer is closed; create a new one to score again')
    this.calls++
    let released = false
    return () => {
      if (released) return
      released = true
      this.calls--
      this.pump()
    }
  }

  private enqueue(job: Job<JobPayload>): Promise<Float64Array | Encoded> {
    if (!this.accepting && this.calls === 0) return Promise.reject(new ScorerError('the ONNX scorer is closed; create a new one to score again'))
    if (this.broken) return Promise.reject(this.broken)
    return new Promise((resolve, reject) => {
      this.queue.push({ ...job, attempts: 0, resolve, reject })
      this.pump()
    })
  }

  /** Stop taking jobs, let queued and running ones finish, then let every worker exit. Idempotent. */
  async close(): Promise<void> {
    this.accepting = false
    while (this.calls > 0 || this.queue.length > 0 || [...this.slots].some((slot) => slot.job)) await new Promise<void>((resolve) => this.idleWaiters.push(resolve))
    await this.stopAll()
  }

  private spawn(): Promise<PoolReady> {
    keepOrtTelemetryOff()
    // Only the pool's first worker saves packed weights; replacements load as the others.
    const first = this.spawned === 0
    this.spawned++
    const { modelPath, ...rest } = this.init
    const worker = new Worker(this.workerUrl, {
      workerData: (typeof modelPath === 'string' ? { ...rest, modelPath } : rest) satisfies WorkerInit,
      // Workers inherit the parent's execArgv; `--input-type` (node -e scripts) is only valid with --eval and kills a worker at load.
      execArgv: process.execArgv.filter((arg) => !arg.startsWith('--input-type')),
    })
    let settle: { resolve(ready: PoolReady): void; reject(error: Error): void } | undefined
    const ready = new Promise<PoolReady>((resolve, reject) => (settle = { resolve, reject }))
    const slot: Slot = {
      worker,
      ready: false,
      job: undefined,
      jobId: 0,
      exitCode: undefined,
      lastError: undefined,
      stopping: false,
      exited: new Promise((resolve) => worker.once('exit', resolve)),
    }
    this.slots.add(slot)
    if (typeof modelPath !== 'string')
      modelPath.then(
        ({ path, save }) => slot.exitCode === undefined && worker.postMessage({ type: 'load', modelPath: path, ...(save && first ? { save } : {}) } satisfies LoadMessage),
        (error: unknown) => settle?.reject(error as Error),
      )
    worker.on('message', (message: WorkerMessage) => {
      switch (message.type) {
        case 'ready':
          slot.ready = true
          // A worker that loaded while close() waits (a replacement after a crash) stays
          // ref'd: unref'd, it would let the process exit mid-close with code 0.
          if (!slot.job && !slot.stopping && this.accepting) worker.unref()
          settle?.resolve({ plan: message.plan, tokenizer: message.tokenizer, ...(message.saved === undefined ? {} : { saved: message.saved }) })
          this.pump()
          return
        case 'init-error':
          settle?.reject(new ConfigError(message.message))
          return
        case 'result':
        case 'encoded':
        case 'run-error': {
          const job = slot.job
          if (!job || message.id !== slot.jobId) return
          slot.job = undefined
          // Idle workers must not keep the process alive (a forgotten close() would hang the exit);
          // once close() is waiting, every worker holds the process until it has exited.
          if (this.accepting) worker.unref()
          if (message.type === 'result') job.resolve(message.probabilities)
          else if (message.type === 'encoded') job.resolve(message.encoded)
          else if (message.kind === 'config') job.reject(new ConfigError(message.message))
          else if (message.kind === 'scorer') job.reject(new ScorerError(message.message))
          else job.reject(new ScorerError(`${job.payload.type === 'encode' ? 'tokenizing' : 'onnxruntime'} failed on ${job.describe()}: ${message.message}`))
          this.pump()
          return
        }
      }
    })
    worker.on('error', (error) => (slot.lastError = error))
    worker.on('exit', (code) => {
      slot.exitCode = code
      this.slots.delete(slot)
      if (slot.stopping) return
      const why = `exit code ${code}${slot.lastError ? `, ${slot.lastError.message.split('\n')[0]}` : ''}`
      if (!slot.ready) {
        settle?.reject(new ConfigError(`${this.init.shownPath}: the ONNX worker died while loading the model (${why})`))
        return
      }
      const job = slot.job
      slot.job = undefined
      if (job) {
        job.attempts++
        if (job.attempts >= 2)
          job.reject(new ScorerError(`the ONNX worker crashed twice (${why}) on ${job.describe()}; the batch was retried once on a fresh worker`))
        else this.queue.unshift(job)
      }
      // Replace the dead worker so the pool keeps its size.
      this.spawn().then(
        () => this.pump(),
        (error: Error) => this.fail(error),
      )
    })
    return ready
  }

  private pump(): void {
    for (const slot of this.slots) {
      if (!slot.ready || slot.job || slot.stopping) continue
      let job: QueuedJob | undefined
      while ((job = this.queue.shift()) && job.cancel?.cancelled) job.reject(new ScorerError('cancelled: another batch of the same call failed'))
      if (!job) break
      slot.job = job
      slot.jobId = this.nextJobId++
      slot.worker.ref()
      slot.worker.postMessage({ ...job.payload, id: slot.jobId } satisfies RunMessage | EncodeMessage)
    }
    if (this.calls === 0 && this.queue.length === 0 && ![...this.slots].some((slot) => slot.job)) {
      const waiters = this.idleWaiters
      this.idleWaiters = []
      for (const wake of waiters) wake()
    }
  }

  /** A replacement worker could not start: nothing can run any more. */
  private fail(error: Error): void {
    this.broken = error
    for (const job of this.queue.splice(0)) job.reject(error)
    this.pump()
  }

  private async stopAll(): Promise<void> {
    await Promise.all(
      [...this.slots].map(async (slot) => {
        slot.stopping = true
        // Whoever awaits close() expects it to settle: hold the process until the worker is gone.
        slot.worker.ref()
        slot.worker.postMessage({ type: 'close' })
        const timer = setTimeout(() => void slot.worker.terminate(), EXIT_GRACE_MS)
        timer.unref()
        await slot.exited
        clearTimeout(timer)
      }),
    )
  }
}
