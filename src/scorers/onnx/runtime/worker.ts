/**
 * One inference worker: owns one ORT session and one tokenizer for its whole life,
 * tokenizes its share of each call and scores batches sent by the pool. Both run here,
 * never on the main thread: `session.run` blocks its thread's event loop for the whole
 * run, and tokenizing long prompts costs a fair share of a run (docs/onnx-prompts.md#tokenization).
 *
 * Built to dist/onnx/worker.js (workers are not transformed by Vite, so this must be
 * plain built JS at run time).
 */
import { parentPort, workerData } from 'node:worker_threads'
import type * as Ort from 'onnxruntime-node'
import { ConfigError, ScorerError, firstLineOf } from '../../../core/support/errors.ts'
import { encodeTexts } from '../prompt/encode-texts.ts'
import { leftPad, suffixPad } from './feeds.ts'
import { planInputs, ModelIoError, type InputPlan } from '../model/model-io.ts'
import { logitAt, softmax } from '../readout/readout.ts'
import { ORT_MISSING, type PrepackSave, type CloseMessage, type EncodeMessage, type LoadMessage, type RunErrorKind, type RunMessage, type WorkerInit, type WorkerMessage } from './protocol.ts'
import { loadTokenizer, type LoadedTokenizer } from '../prompt/tokenizer.ts'
import { EXACT_INTEGER_PRODUCTS } from './integer-precision.ts'

// Node 24 has Float16Array, and onnxruntime-common then hands float16 tensors over as one, which
// onnxruntime-node 1.30's native binding reads as empty ("not enough space … got 0") when fed back
// as a past cache. This thread keeps float16 as raw Uint16Array bits, as on Node 20 and 22.
// (ORT checks for Float16Array lazily, at its first tensor, which is made after this line.)
Reflect.deleteProperty(globalThis, 'Float16Array')

const init = workerData as WorkerInit
const port = parentPort!
let ort: typeof Ort
let session: Ort.InferenceSession | undefined
let plan: InputPlan
let tokenizer: LoadedTokenizer
let busy = false
let closing = false
// The model file: given at start, or sent once the main thread has written the letter head.
let loadModel: ((load: LoadMessage) => void) | undefined
const modelLoad: Promise<Pick<LoadMessage, 'modelPath' | 'save'>> = init.modelPath !== undefined ? Promise.resolve({ modelPath: init.modelPath }) : new Promise((resolve) => (loadModel = resolve))

/** A model/tokenizer mismatch found while running: a config problem, not a crash. */
class MismatchError extends Error {}

const post = (message: WorkerMessage, transfer: ArrayBuffer[] = []): void => port.postMessage(message, transfer)

async function start(): Promise<void> {
  try {
    // Dynamic: onnxruntime-node is an optional peer dependency.
    ort = (await import('onnxruntime-node')) as typeof Ort
    ort.env.logLevel = 'fatal'
  } catch {
    return post({ type: 'init-error', kind: 'ort-missing', message: ORT_MISSING })
  }
  // Parsed while ORT loads the model (a 262k vocabulary takes seconds); its errors report first, as the file read first.
  const loading = loadTokenizer(init.tokenizerDir)
  loading.catch(() => {})
  const { modelPath: path, save } = await modelLoad
  if (closing) return shutdown()
  let saved: boolean | undefined
  try {
    ;({ session, saved } = await createSession(path, save))
  } catch (error) {
    const tokenizerError = await loading.then(() => undefined, (e: unknown) => e)
    if (tokenizerError) return post({ type: 'init-error', kind: tokenizerError instanceof ConfigError ? 'config' : 'other', message: firstLineOf(tokenizerError) })
    return post({ type: 'init-error', kind: 'config', message: `${init.shownPath}: onnxruntime cannot load the model: ${firstLineOf(error)}` })
  }
  try {
    tokenizer = await loading
  } catch (error) {
    await session.release().catch(() => {})
    return post({ type: 'init-error', kind: error instanceof ConfigError ? 'config' : 'other', message: firstLineOf(error) })
  }
  // A close that arrived while the model was loading: release it and let the thread end.
  if (closing) return shutdown()
  try {
    plan = planInputs(session.inputMetadata as never, session.outputMetadata as never, init.shownPath, init.config)
  } catch (error) {
    await session.release().catch(() => {})
    return post({ type: 'init-error', kind: error instanceof ModelIoError ? 'config' : 'other', message: firstLineOf(error) })
  }
  post({ type: 'ready', plan, tokenizer: { path: tokenizer.path, vocabSize: tokenizer.vocabSize }, ...(saved === undefined ? {} : { saved }) })
}

/**
 * The worker's session. With `save`, ORT also writes the optimized graph and its packed
 * weights there (prepack-cache.ts); a save that fails (a full disk) loads as usual.
 */
async function createSession(path: string, save: PrepackSave | undefined): Promise<{ session: Ort.InferenceSession; saved?: boolean }> {
  const options: Ort.InferenceSession.SessionOptions = {
    executionProviders: init.executionProviders as Ort.InferenceSession.ExecutionProviderConfig[],
    intraOpNumThreads: init.intraOpNumThreads,
    // Explicit: ORT's default is one thread per core per session, which oversubscribes next to the other workers.
    interOpNumThreads: 1,
    executionMode: 'sequential',
    // Fatal only: ORT's own error lines (coloured, ignoring NO_COLOR) would duplicate the
    // one-line ScorerError that reports every run failure with the requests it hit.
    logSeverityLevel: 4,
    extra: { session: EXACT_INTEGER_PRODUCTS },
  }
  if (!save) return { session: await ort.InferenceSession.create(path, options) }
  const saving = {
    ...options,
    optimizedModelFilePath: save.modelPath,
    extra: { session: { ...EXACT_INTEGER_PRODUCTS, save_external_prepacked_constant_initializers: '1', optimized_model_external_initializers_file_name: save.dataFile, optimized_model_external_initializers_min_size_in_bytes: '1024' } },
  }
  try {
    return { session: await ort.InferenceSession.create(path, saving), saved: true }
  } catch {
    return { session: await ort.InferenceSession.create(path, options), saved: false }
  }
}

async function run(message: RunMessage): Promise<Float64Array> {
  const { ids, prefix } = message
  if (init.faults && (ids.includes(init.faults.tokenId) || prefix?.includes(init.faults.tokenId)) && Atomics.sub(new Int32Array(init.faults.budget), 0, 1) > 0)
    process.exit(70)
  return prefix ? runShared(message, prefix) : runFull(message)
}

/** Full prompts, left-padded into one run, from an empty cache. */
async function runFull(message: RunMessage): Promise<Float64Array> {
  const { ids, lengths, letters, letterCounts } = message
  const batch = leftPad(ids, lengths)
  const dims = [batch.rows, batch.width]
  const feeds: Record<string, Ort.Tensor> = { input_ids: new ort.Tensor('int64', batch.inputIds, dims) }
  if (plan.attentionMask) feeds.attention_mask = new ort.Tensor('int64', batch.attentionMask, dims)
  if (plan.positionIds) feeds.position_ids = new ort.Tensor('int64', batch.positionIds, dims)
  addEmptyPast(feeds, batch.rows)
  // Fetch only logits: the present.* outputs are computed anyway but need not be copied into JS.
  const output = await session!.run(feeds, ['logits'])
  const probabilities = new Float64Array(letters.length)
  readRows(output.logits!, batch.rows, letters, letterCounts, 0, probabilities)
  return probabilities
}

/**
 * Prefix sharing: run the shared prefix once (batch 1, fetching only its cache), then
 * the suffixes against that cache, `suffixRows` at a time (the cache tiled to that many
 * rows), or one at a time on the untiled cache when `suffixRows` is 1. The cache is
 * local to this call: nothing outlives the message, so memory does not grow with a run.
 */
async function runShared(message: RunMessage, prefix: Int32Array): Promise<Float64Array> {
  const { ids, lengths, letters, letterCounts } = message
  const P = prefix.length
  const feeds: Record<string, Ort.Tensor> = { input_ids: new ort.Tensor('int64', BigInt64Array.from(prefix, BigInt), [1, P]) }
  feeds.attention_mask = new ort.Tensor('int64', new BigInt64Array(P).fill(1n), [1, P])
  if (plan.positionIds) feeds.position_ids = new ort.Tensor('int64', BigInt64Array.from({ length: P }, (_, i) => BigInt(i)), [1, P])
  addEmptyPast(feeds, 1)
  const cache = await session!.run(feeds, plan.past.map((p) => p.present!))
  const tiled = new Map<number, Record<string, Ort.Tensor>>()
  // The same cache for n rows: copied n times along the batch axis (ORT does not broadcast a batch-1 past).
  const pastFor = (n: number): Record<string, Ort.Tensor> => {
    let out = tiled.get(n)
    if (out) return out
    out = {}
    for (const past of plan.past) {
      const one = cache[past.present!]!
      if (n === 1) out[past.name] = one
      else {
        const data = one.data as Float32Array | Uint16Array
        const many = new (data.constructor as Float32ArrayConstructor | Uint16ArrayConstructor)(data.length * n)
        for (let r = 0; r < n; r++) many.set(data as never, r * data.length)
        out[past.name] = new ort.Tensor(past.type, many, [n, ...one.dims.slice(1)])
      }
    }
    tiled.set(n, out)
    return out
  }
  const step = Math.max(1, message.suffixRows ?? lengths.length)
  const probabilities = new Float64Array(letters.length)
  let idOffset = 0
  let letterOffset = 0
  for (let first = 0; first < lengths.length; first += step) {
    const rowLengths = lengths.subarray(first, Math.min(lengths.length, first + step))
    const tokens = rowLengths.reduce((a, b) => a + b, 0)
    const batch = suffixPad(ids.subarray(idOffset, idOffset + tokens), rowLengths, P)
    const suffixFeeds: Record<string, Ort.Tensor> = {
      input_ids: new ort.Tensor('int64', batch.inputIds, [batch.rows, batch.width]),
      attention_mask: new ort.Tensor('int64', batch.attentionMask, [batch.rows, P + batch.width]),
      ...pastFor(batch.rows),
    }
    if (plan.positionIds) suffixFeeds.position_ids = new ort.Tensor('int64', batch.positionIds, [batch.rows, batch.width])
    if (plan.useCacheBranch) suffixFeeds[plan.useCacheBranch] = new ort.Tensor('bool', [true], [1])
    const output = await session!.run(suffixFeeds, ['logits'])
    letterOffset = readRows(output.logits!, batch.rows, letters, letterCounts.subarray(first), letterOffset, probabilities)
    idOffset += tokens
  }
  tiled.clear()
  return probabilities
}

/** Zero-length caches: a first pass over whole prompts. ORT requires every declared past input. */
function addEmptyPast(feeds: Record<string, Ort.Tensor>, rows: number): void {
  for (const past of plan.past) {
    const empty = past.type === 'float32' ? new Float32Array(0) : new Uint16Array(0)
    feeds[past.name] = new ort.Tensor(past.type, empty, [rows, past.kvHeads, 0, past.headDim])
  }
  if (plan.useCacheBranch) feeds[plan.useCacheBranch] = new ort.Tensor('bool', [false], [1])
}

/**
 * Softmax over the letters at each row's last position, written into `out` from
 * `letterOffset` on; returns the offset after the last row. `letterCounts` starts at
 * this run's first row.
 */
function readRows(
  logits: Ort.Tensor,
  expectedRows: number,
  letters: Int32Array,
  letterCounts: Int32Array,
  letterOffset: number,
  out: Float64Array,
): number {
  const [rows, positions, vocab] = logits.dims as [number, number, number]
  if (rows !== expectedRows || logits.dims.length !== 3) throw new Error(`"logits" has shape [${logits.dims.join(', ')}]; [${expectedRows}, positions, vocab] expected`)
  // float16 logits are raw bits (Uint16Array) or, where Node has Float16Array (24+), values.
  const value = logitAt(logits.data as ArrayLike<number>)
  let offset = letterOffset
  for (let row = 0; row < rows; row++) {
    const base = (row * positions + positions - 1) * vocab
    const picked: number[] = []
    for (let i = 0; i < letterCounts[row]!; i++) {
      const id = letters[offset + i]!
      if (id >= vocab) throw new MismatchError(`${init.shownPath}: letter token id ${id} is outside the model's vocabulary (${vocab} logits); tokenizer.json does not match the model`)
      picked.push(value(base + id))
    }
    out.set(softmax(picked), offset)
    offset += letterCounts[row]!
  }
  return offset
}

async function shutdown(): Promise<void> {
  await session?.release().catch(() => {})
  // Closing the port ends the thread once nothing else is pending.
  port.close()
}

/** How the pool should report a failed job. */
function errorKind(error: unknown): RunErrorKind {
  if (error instanceof MismatchError || error instanceof ConfigError) return 'config'
  return error instanceof ScorerError ? 'scorer' : 'other'
}

/** Tokenize a share of a call: synchronous, but kept off the main thread. */
async function encode(message: EncodeMessage): Promise<void> {
  const encoded = encodeTexts(tokenizer, message.texts, message.letterCounts, message.special)
  post({ type: 'encoded', id: message.id, encoded }, [encoded.ids.buffer as ArrayBuffer, encoded.lengths.buffer as ArrayBuffer, encoded.letters.buffer as ArrayBuffer])
}

port.on('message', (message: RunMessage | EncodeMessage | CloseMessage | LoadMessage) => {
  if (message.type === 'load') return loadModel?.(message)
  if (message.type === 'close') {
    closing = true
    if (!busy) void shutdown()
    return
  }
  busy = true
  const job =
    message.type === 'encode'
      ? Promise.resolve().then(() => encode(message))
      : run(message).then((probabilities) => post({ type: 'result', id: message.id, probabilities }, [probabilities.buffer as ArrayBuffer]))
  job.catch((error: unknown) => post({ type: 'run-error', id: message.id, kind: errorKind(error), message: firstLineOf(error) })).finally(() => {
    busy = false
    // A close that arrived mid-run waits for the run: releasing a session inside run() aborts the process.
    if (closing) void shutdown()
  })
})

void start()
