/**
 * Starting the GGUF scorer: node-llama-cpp's CPU binary (never a download, a build or a
 * GPU probe; llama.cpp's log kept off stderr), the model, its tokenizer and chat template
 * (both read from the file), a check that the option letters can be read after a prompt,
 * and one context with a sequence per decision evaluated side by side.
 */
import { statSync } from 'node:fs'
import { ConfigError, firstLineOf, ScorerError } from '../../core/support/errors.ts'
import { chatRenderer, type ChatOptions, type PromptRenderer } from '../prompt/chat-template.ts'
import { letterIdsInContext } from '../prompt/letter-readout.ts'
import { withCiAsBoolean } from './environment.ts'
import { checkHyperparameters, type CheckedHeader } from './hyperparameters.ts'
import { LLAMA_INSTALL, LLAMA_MISSING } from './model-file.ts'
import type { GgufScorerSettings } from './options.ts'
import { reuseSamplers } from './samplers.ts'

/** The node-llama-cpp module. */
export type NodeLlamaCpp = typeof import('node-llama-cpp')
type Llama = Awaited<ReturnType<NodeLlamaCpp['getLlama']>>
/** A node-llama-cpp model. */
export type LlamaModel = Awaited<ReturnType<Llama['loadModel']>>
/** A node-llama-cpp context. */
export type LlamaContext = Awaited<ReturnType<LlamaModel['createContext']>>
/** One of its sequences. */
export type LlamaSequence = ReturnType<LlamaContext['getSequence']>

/** A started scorer: what every call needs. */
export interface Started {
  readonly model: LlamaModel
  readonly context: LlamaContext
  readonly sequences: readonly LlamaSequence[]
  /** Token ids of a prompt: BOS as the file asks for plain prompts (`plain`), the special tokens a text spells out always. */
  readonly encode: (text: string, plain: boolean) => Int32Array
  /** Letter ids A.. for `count` options after `prompt`, read in context (cached per prompt ending). */
  readonly letterIds: (prompt: string, count: number, plain: boolean) => Int32Array
  readonly render: PromptRenderer | undefined
  /** The model's trained context, in tokens. */
  readonly trainContext: number
  /** The model's vocabulary size. */
  readonly vocab: number
  /** The file's `general.architecture`. */
  readonly architecture: string
}

// One llama.cpp binding per process and thread count: loading it is the slow part of startup.
const bindings = new Map<number, Promise<Llama>>()

/** The node-llama-cpp module, or a {@link ConfigError} with the one line saying what to install. */
async function nodeLlamaCpp(): Promise<NodeLlamaCpp> {
  try {
    return await withCiAsBoolean(() => import('node-llama-cpp'))
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') throw new ConfigError(LLAMA_MISSING)
    throw new ConfigError(`node-llama-cpp failed to load: ${firstLineOf(error)}`)
  }
}

function binding(llamaCpp: NodeLlamaCpp, threads: number): Promise<Llama> {
  let pending = bindings.get(threads)
  if (!pending) {
    pending = withCiAsBoolean(() =>
      llamaCpp.getLlama({
        gpu: false,
        build: 'never',
        usePrebuiltBinaries: true,
        skipDownload: true,
        progressLogs: false,
        maxThreads: threads,
        logLevel: llamaCpp.LlamaLogLevel.error,
        // Explicit, not from NODE_LLAMA_CPP_DEBUG: debug mode hands llama.cpp's whole log to stderr.
        debug: false,
        // llama.cpp's own lines (llama_model_load: …) never reach stderr: a bad file is one line, ours.
        logger: () => {},
      }),
    ).catch((error: unknown) => {
      bindings.delete(threads)
      throw new ConfigError(`node-llama-cpp has no usable prebuilt CPU binary here (nothing is downloaded or built): ${LLAMA_INSTALL} (${firstLineOf(error)})`)
    })
    bindings.set(threads, pending)
  }
  return pending
}

/** What {@link startScorer} needs besides the settings. */
export interface StartInputs {
  readonly chat: ChatOptions
  /** Called with the context once it exists, so `close()` can dispose of it. */
  readonly onDispose: (dispose: () => Promise<void>) => void
  /** Aborted by `close()`: a chat template still rendering its first prompt is stopped. */
  readonly signal?: AbortSignal
}

/** A model loaded for scoring, with what both readouts need. */
export interface LoadedModel {
  readonly model: LlamaModel
  /** The file's `general.architecture`. */
  readonly architecture: string
  /** The model's trained context, in tokens (from the file, unsigned). */
  readonly trainContext: number
  /** Whether a plain prompt starts with BOS, as the file asks. */
  readonly addBos: boolean
}

/**
 * node-llama-cpp's CPU binary, the file's header checked, the model loaded (its samplers pooled).
 * `onDispose` gets what frees it all, in order, as soon as there is anything to free; `alsoDispose`
 * adds later steps (contexts) to run before the model goes. Rejects with a one-line
 * {@link ConfigError} for a file llama.cpp cannot use.
 */
export async function loadModel(settings: Pick<GgufScorerSettings, 'modelPath' | 'threads'>, onDispose: (dispose: () => Promise<void>) => void): Promise<LoadedModel & { readonly llamaCpp: NodeLlamaCpp; readonly alsoDispose: (step: () => Promise<void>) => void }> {
  const path = settings.modelPath
  const llamaCpp = await nodeLlamaCpp()
  const llama = await binding(llamaCpp, settings.threads)
  const { architecture, trainContext: fileContext } = await readHeader(llamaCpp, path)
  let model: LlamaModel
  try {
    // Contexts default to an F32 KV cache without flash attention (ggufScorer's defaults, see options.ts): decide()'s context takes no such setting of its own.
    model = await llama.loadModel({ modelPath: path, gpuLayers: 0, useMlock: false, experimentalDefaultContextKvCacheKeyType: 'F32', experimentalDefaultContextKvCacheValueType: 'F32', defaultContextFlashAttention: false })
  } catch (error) {
    throw new ConfigError(`${path}: llama.cpp cannot load it (architecture "${architecture}", ${statSync(path).size} bytes: truncated, or an architecture llama.cpp does not know): ${firstLineOf(error)}`)
  }
  const dispose = [() => model.dispose()]
  onDispose(async () => {
    for (const step of dispose.reverse()) await step()
  })
  // Before the model goes: its pooled samplers hold a reference to it.
  const releaseSamplers = reuseSamplers(llama, model)
  dispose.push(async () => releaseSamplers())
  // From the file, unsigned: llama.cpp's getter returns it as a signed 32-bit number (2^31 read as −2^31).
  const trainContext = fileContext ?? model.trainContextSize
  const metadata = model.fileInfo.metadata as { tokenizer?: { ggml?: { add_bos_token?: unknown } } }
  const addBos = metadata.tokenizer?.ggml?.add_bos_token === true && model.tokens.bos !== null
  return { model, architecture, trainContext, addBos, llamaCpp, alsoDispose: (step) => void dispose.push(step) }
}

/** Load the model and make its context. Rejects with a one-line {@link ConfigError} for a file llama.cpp cannot use. */
export async function startScorer(settings: GgufScorerSettings, { chat, onDispose, signal }: StartInputs): Promise<Started> {
  const path = settings.modelPath
  const { model, architecture, trainContext, addBos, alsoDispose } = await loadModel(settings, onDispose)
  const metadata = model.fileInfo.metadata as { tokenizer?: { chat_template?: unknown } }
  const vocab = vocabSize(model)
  const encode = (text: string, plain: boolean): Int32Array => {
    const ids = model.tokenize(text, true) as number[]
    return Int32Array.from(plain && addBos && ids[0] !== model.tokens.bos ? [model.tokens.bos as number, ...ids] : ids)
  }
  const decode = (id: number): string => model.detokenize([id as never], true)
  const cache = new Map<string, Int32Array>()
  const letterIds = (prompt: string, count: number, plain: boolean): Int32Array => {
    const key = `${plain ? 1 : 0}|${count}|${prompt.slice(-64)}`
    let ids = cache.get(key)
    if (!ids) {
      ids = letterIdsInContext((text) => encode(text, plain), decode, prompt, count, path)
      for (const id of ids) if (id >= vocab) throw new ConfigError(`${path}: letter token id ${id} is outside the model's ${vocab} logits`)
      cache.set(key, ids)
    }
    return ids
  }
  // The letters of a plain prompt, checked now: a vocabulary without them fails at startup, in one line.
  letterIds('Question: which one?\nAnswer:', 2, true)
  const specials: Record<string, unknown> = {}
  if (model.tokens.bosString) specials.bos_token = model.tokens.bosString
  if (model.tokens.eosString) specials.eos_token = model.tokens.eosString
  const template = metadata.tokenizer?.chat_template
  const render = await chatRenderer(chat, { ...specials, ...(typeof template === 'string' ? { chat_template: template } : {}) }, `${path} (tokenizer.chat_template)`, undefined, 'ggufScorer', signal)
  alsoDispose(async () => render?.close())
  const perSequence = settings.contextLength ?? Math.min(trainContext, 4096)
  let context: LlamaContext
  try {
    context = await model.createContext({
      sequences: settings.sequences,
      // One cell more than the longest prompt: node-llama-cpp keeps a sequence's last cell free
      // and makes room by erasing the prompt's start, so a prompt of exactly contextLength
      // tokens needs contextLength + 1 cells.
      contextSize: perSequence + 1,
      batchSize: Math.min(settings.batchSize, perSequence),
      threads: settings.threads,
      flashAttention: settings.flashAttention,
      experimentalKvCacheKeyType: settings.kvCacheType,
      experimentalKvCacheValueType: settings.kvCacheType,
    })
  } catch (error) {
    throw new ConfigError(`${path}: llama.cpp cannot make a context of ${settings.sequences} × ${perSequence} tokens: ${firstLineOf(error)} (lower contextLength or sequences)`)
  }
  alsoDispose(() => context.dispose())
  // A prompt over contextLength is a too_long failure before it reaches here; should one get
  // through anyway, the call fails rather than answer from a prompt whose start was erased.
  const contextShift = { strategy: () => { throw new ScorerError(`${path}: a prompt needed more than the ${perSequence} tokens of its sequence; llama.cpp would have erased its start`) } }
  const sequences = Array.from({ length: settings.sequences }, () => context.getSequence({ contextShift }))
  return { model, context, sequences, encode, letterIds, render, trainContext, vocab, architecture }
}

/** Rows of the token embedding: the ids the model has logits for. */
export function vocabSize(model: LlamaModel): number {
  const tokens = (model.fileInfo.metadata as unknown as { tokenizer?: { ggml?: { tokens?: readonly unknown[] } } }).tokenizer?.ggml?.tokens
  return Array.isArray(tokens) ? tokens.length : Number.MAX_SAFE_INTEGER
}

/** The file's header, checked against llama.cpp's limits; a {@link ConfigError} when it cannot be read or llama.cpp would abort on it. */
async function readHeader(llamaCpp: NodeLlamaCpp, path: string): Promise<CheckedHeader> {
  let info: Awaited<ReturnType<NodeLlamaCpp['readGgufFileInfo']>>
  try {
    info = await llamaCpp.readGgufFileInfo(path, { readTensorInfo: false, logWarnings: false, sourceType: 'filesystem', ignoreKeys: ['tokenizer.ggml.tokens', 'tokenizer.ggml.merges', 'tokenizer.ggml.token_type', 'tokenizer.ggml.scores'] })
  } catch (error) {
    throw new ConfigError(`${path}: not a readable GGUF file: ${firstLineOf(error)}`)
  }
  return checkHyperparameters(path, info.version, info.metadata as unknown as Record<string, unknown>)
}
