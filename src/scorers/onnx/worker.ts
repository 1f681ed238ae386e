/**
 * One inference worker: owns one ORT session for its whole life and scores batches
 * sent by the pool. Inference runs here, never on the main thread, because
 * `session.run` blocks its thread's event loop for the whole run.
 *
 * Built to dist/onnx/worker.js (workers are not transformed by Vite, so this must be
 * plain built JS at run time).
 */
import { parentPort, workerData } from 'node:worker_threads'
import type * as Ort from 'onnxruntime-node'
import { leftPad } from './feeds.ts'
import { planInputs, ModelIoError, type InputPlan } from './model-io.ts'
import { halfToFloat, softmax } from './readout.ts'
import { ORT_MISSING, type CloseMessage, type RunMessage, type WorkerInit, type WorkerMessage } from './protocol.ts'

const init = workerData as WorkerInit
const port = parentPort!
let ort: typeof Ort
let session: Ort.InferenceSession | undefined
let plan: InputPlan
let busy = false
let closing = false

/** A model/tokenizer mismatch found while running: a config problem, not a crash. */
class MismatchError extends Error {}

const post = (message: WorkerMessage, transfer: ArrayBuffer[] = []): void => port.postMessage(message, transfer)
const firstLine = (error: unknown): string => String((error as Error)?.message ?? error).split('\n')[0]!

async function start(): Promise<void> {
  try {
    // Dynamic: onnxruntime-node is an optional peer dependency.
    ort = (await import('onnxruntime-node')) as typeof Ort
  } catch {
    return post({ type: 'init-error', kind: 'ort-missing', message: ORT_MISSING })
  }
  try {
    session = await ort.InferenceSession.create(init.modelPath, {
      executionProviders: init.executionProviders as Ort.InferenceSession.ExecutionProviderConfig[],
      intraOpNumThreads: init.intraOpNumThreads,
      // Explicit: ORT's default is one thread per core per session, which oversubscribes next to the other workers.
      interOpNumThreads: 1,
      executionMode: 'sequential',
      logSeverityLevel: 3,
    })
  } catch (error) {
    return post({ type: 'init-error', kind: 'config', message: `${init.modelPath}: onnxruntime cannot load the model: ${firstLine(error)}` })
  }
  try {
    plan = planInputs(session.inputMetadata as never, session.outputMetadata as never, init.modelPath)
  } catch (error) {
    await session.release().catch(() => {})
    return post({ type: 'init-error', kind: error instanceof ModelIoError ? 'config' : 'other', message: firstLine(error) })
  }
  post({ type: 'ready', plan })
}

async function run(message: RunMessage): Promise<Float64Array> {
  const { ids, lengths, letters, letterCounts } = message
  if (init.faults && ids.includes(init.faults.tokenId) && Atomics.sub(new Int32Array(init.faults.budget), 0, 1) > 0) process.exit(70)
  const batch = leftPad(ids, lengths)
  const dims = [batch.rows, batch.width]
  const feeds: Record<string, Ort.Tensor> = { input_ids: new ort.Tensor('int64', batch.inputIds, dims) }
  if (plan.attentionMask) feeds.attention_mask = new ort.Tensor('int64', batch.attentionMask, dims)
  if (plan.positionIds) feeds.position_ids = new ort.Tensor('int64', batch.positionIds, dims)
  for (const past of plan.past) {
    // Zero-length caches: a first pass over the whole prompt. ORT requires every declared past input.
    const empty = past.type === 'float32' ? new Float32Array(0) : new Uint16Array(0)
    feeds[past.name] = new ort.Tensor(past.type, empty, [batch.rows, past.kvHeads, 0, past.headDim])
  }
  if (plan.useCacheBranch) feeds[plan.useCacheBranch] = new ort.Tensor('bool', [false], [1])
  // Fetch only logits: the present.* outputs are computed anyway but need not be copied into JS.
  const output = await session!.run(feeds, ['logits'])
  const logits = output.logits!
  const [rows, positions, vocab] = logits.dims as [number, number, number]
  if (rows !== batch.rows || logits.dims.length !== 3) throw new Error(`"logits" has shape [${logits.dims.join(', ')}]; [${batch.rows}, positions, vocab] expected`)
  const data = logits.data as Float32Array | Uint16Array
  const value = plan.logitsType === 'float16' ? (i: number) => halfToFloat(data[i]!) : (i: number) => data[i]!
  const probabilities = new Float64Array(letters.length)
  let offset = 0
  for (let row = 0; row < rows; row++) {
    const base = (row * positions + positions - 1) * vocab
    const picked: number[] = []
    for (let i = 0; i < letterCounts[row]!; i++) {
      const id = letters[offset + i]!
      if (id >= vocab) throw new MismatchError(`${init.modelPath}: letter token id ${id} is outside the model's vocabulary (${vocab} logits); tokenizer.json does not match the model`)
      picked.push(value(base + id))
    }
    probabilities.set(softmax(picked), offset)
    offset += letterCounts[row]!
  }
  return probabilities
}

async function shutdown(): Promise<void> {
  await session?.release().catch(() => {})
  // Closing the port ends the thread once nothing else is pending.
  port.close()
}

port.on('message', (message: RunMessage | CloseMessage) => {
  if (message.type === 'close') {
    closing = true
    if (!busy) void shutdown()
    return
  }
  busy = true
  run(message).then(
    (probabilities) => post({ type: 'result', id: message.id, probabilities }, [probabilities.buffer as ArrayBuffer]),
    (error: unknown) =>
      post({ type: 'run-error', id: message.id, kind: error instanceof MismatchError ? 'config' : 'other', message: firstLine(error) }),
  ).finally(() => {
    busy = false
    // A close that arrived mid-run waits for the run: releasing a session inside run() aborts the process.
    if (closing) void shutdown()
  })
})

void start()
