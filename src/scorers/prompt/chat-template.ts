/**
 * Chat templates (docs/onnx.md, "Chat templates"), for the local-model scorers (ONNX, GGUF):
 * the model's own `chat_template` (from `tokenizer_config.json`, or a GGUF file's
 * `tokenizer.chat_template`), or one of the user's, rendered with `@huggingface/jinja`
 * (the renderer transformers.js uses) exactly as transformers.js' `apply_chat_template`
 * renders it: `messages`, `add_generation_prompt: true`, the special tokens of the
 * config (`bos_token`, `eos_token`, …) and the user's keyword arguments.
 */
import { fork, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import type { Criterion } from '../../core/decisions/schema.ts'
import { ConfigError, firstLineOf } from '../../core/support/errors.ts'
import { resolveWorkerFile } from '../onnx/runtime/pool.ts'
import type { TemplateMessage, TemplateReady, TemplateReply, TemplateWorkerInit } from './template-protocol.ts'

/** The chat options of the ONNX scorer (and the CLI's `--chat-template`, `--system`, `--chat-template-kwargs`). */
export interface ChatOptions {
  /**
   * `true`: render the model's own `chat_template` (tokenizer_config.json); a string:
   * a Jinja template of your own. Default: no template, the plain prompt.
   */
  readonly chatTemplate?: boolean | string
  /** A system message placed before the user's (only with a chat template). Default: none. */
  readonly system?: string
  /** Extra template variables, e.g. `{ enable_thinking: false }` for Qwen3 (only with a chat template). Default: none. */
  readonly chatTemplateKwargs?: Readonly<Record<string, unknown>>
}

/**
 * Turns the user's prompt texts into the texts the model reads: every text of a call in one
 * round trip to the template's process, bounded by a time limit and the run's `signal`.
 */
export interface PromptRenderer {
  (userTexts: readonly string[], signal?: AbortSignal): Promise<string[]>
  /** Stop the template's process (a later call starts a new one). */
  close(): Promise<void>
}

/** Limits of one template renderer process. */
export interface RenderLimits {
  /** A call may take this long, plus {@link RenderLimits.perPromptMs} per prompt. */
  readonly baseMs: number
  readonly perPromptMs: number
  /** Its heap (`--max-old-space-size`), in MB. */
  readonly memoryMb: number
}

/** Rendering a prompt takes well under a millisecond: these catch only a runaway template. */
export const RENDER_LIMITS: RenderLimits = { baseMs: 30_000, perPromptMs: 10, memoryMb: 256 }

/** How long a renderer process may take to start (a fork and an import; no template code runs). */
const STARTUP_MS = 60_000

/**
 * The text the model reads for each request: the request's prompt (or `template`'s),
 * rendered through the chat template when there is one.
 */
export async function promptTexts(
  requests: readonly { readonly state: string; readonly criterion: Criterion; readonly prompt: string }[],
  template: ((state: string, criterion: Criterion) => string) | undefined,
  render: PromptRenderer | undefined,
  signal?: AbortSignal,
): Promise<string[]> {
  const own = requests.map((request) => (template ? template(request.state, request.criterion) : request.prompt))
  return render ? render(own, signal) : own
}

// The config keys transformers.js passes to the template (its SPECIAL_TOKEN_ATTRIBUTES).
const SPECIAL_TOKENS = ['bos_token', 'eos_token', 'unk_token', 'sep_token', 'pad_token', 'cls_token', 'mask_token'] as const
// Variables the renderer sets itself; kwargs may not replace them.
const RESERVED = new Set(['messages', 'add_generation_prompt'])

/**
 * The renderer for these options, or `undefined` for the plain prompt. `config` is the
 * parsed tokenizer_config.json (`{}` when absent), `configPath` names it in errors.
 * Checks everything once, here: a missing template, one that does not compile or
 * render (or loops, or allocates past the limit), kwargs that are not a plain object or
 * replace a reserved variable. The template runs only in its own process (template-child.ts).
 */
export async function chatRenderer(
  options: ChatOptions,
  config: Readonly<Record<string, unknown>>,
  configPath: string,
  limits: RenderLimits = RENDER_LIMITS,
  scorer = 'onnxScorer',
  signal?: AbortSignal,
): Promise<PromptRenderer | undefined> {
  const { chatTemplate, system, chatTemplateKwargs } = options
  if (chatTemplate === undefined || chatTemplate === false) {
    if (system !== undefined || chatTemplateKwargs !== undefined)
      throw new ConfigError(`${scorer}: \`system\` and \`chatTemplateKwargs\` apply only with \`chatTemplate\` (CLI --chat-template)`)
    return undefined
  }
  if (typeof chatTemplate !== 'boolean' && typeof chatTemplate !== 'string')
    throw new ConfigError(`${scorer}: \`chatTemplate\` must be true or a Jinja template string, got ${typeof chatTemplate}`)
  if (system !== undefined && typeof system !== 'string') throw new ConfigError(`${scorer}: \`system\` must be a string, got ${typeof system}`)
  const kwargs = checkKwargs(chatTemplateKwargs, scorer)
  const source = chatTemplate === true ? modelTemplate(config, configPath) : chatTemplate
  const where = chatTemplate === true ? `${configPath}: its chat_template` : `${scorer}: \`chatTemplate\``
  const specials: Record<string, string> = {}
  for (const key of SPECIAL_TOKENS) {
    const token = specialToken(config[key])
    if (token) specials[key] = token
  }
  const render = templateProcess({ source, system, context: { ...specials, ...kwargs } }, where, limits)
  // Fail at creation, not mid-run: a template that cannot render a simple prompt. A scorer
  // closed meanwhile (a run past its --timeout) stops the probe at once, not at its time limit.
  try {
    await render(['Probe.\nAnswer:'], signal)
  } catch (error) {
    await render.close()
    throw error
  }
  return render
}

// Renderer processes still running; one exit listener serves them all (not one per renderer, which warns past ten).
const running = new Set<ChildProcess>()
const killRunning = () => {
  for (const child of running) child.kill('SIGKILL')
}

/** Kill `child` when this process exits, unless it exited first. */
function killAtExit(child: ChildProcess): void {
  if (running.size === 0) process.on('exit', killRunning)
  running.add(child)
  child.once('exit', () => {
    running.delete(child)
    if (running.size === 0) process.off('exit', killRunning)
  })
}

/** A renderer whose template runs in a child process, started on first use and after a call it had to stop. */
function templateProcess(init: TemplateWorkerInit, where: string, limits: RenderLimits): PromptRenderer {
  let child: ChildProcess | undefined
  let calls = 0
  // Processes that said they are ready: a render's deadline starts then, so a slow fork on a busy machine is not a looping template.
  const ready = new WeakSet<ChildProcess>()
  const stop = async (): Promise<void> => {
    const running = child
    child = undefined
    if (!running || running.exitCode !== null || running.signalCode !== null) return
    const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()))
    // Whoever awaits close() expects it to settle: unref'd, the loop could drain before this 'exit'.
    busy(running)
    running.kill('SIGKILL')
    await exited
  }
  const start = (): ChildProcess => {
    // No inherited flags (a test runner's loaders); its own heap limit; its output discarded (an abort prints V8's native stack).
    const started = fork(fileURLToPath(resolveWorkerFile('template-child.js')), [], {
      execArgv: [`--max-old-space-size=${limits.memoryMb}`],
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
      serialization: 'advanced',
    })
    started.on('error', () => {}) // reported through 'exit' to the call in flight
    // This process exiting takes its renderer along (a looping template would not notice).
    killAtExit(started)
    started.on('message', (message: TemplateReply | TemplateReady) => {
      if ('kind' in message) ready.add(started)
    })
    started.send({ kind: 'init', init } satisfies TemplateMessage)
    idle(started)
    return started
  }
  const render = (texts: readonly string[], signal?: AbortSignal): Promise<string[]> => {
    if (signal?.aborted) return Promise.reject(signal.reason)
    if (texts.length === 0) return Promise.resolve([])
    let proc: ChildProcess
    try {
      proc = child ??= start()
    } catch (error) {
      return Promise.reject(new ConfigError(`${where}: its renderer cannot start: ${firstLineOf(error)}`))
    }
    const id = ++calls
    const ms = limits.baseMs + limits.perPromptMs * texts.length
    return new Promise<string[]>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined
      const done = (finish: () => void, kill: boolean) => {
        clearTimeout(timer)
        signal?.removeEventListener('abort', onAbort)
        proc.off('message', onMessage).off('exit', onExit)
        idle(proc)
        if (kill && child === proc) void stop()
        finish()
      }
      const onMessage = (reply: TemplateReply | TemplateReady) => {
        if ('kind' in reply) return arm()
        if (reply.id !== id) return
        if ('rendered' in reply) done(() => resolve(reply.rendered), false)
        else done(() => reject(new ConfigError(`${where} ${reply.stage === 'compile' ? 'does not compile' : 'fails to render'}: ${reply.error}`)), false)
      }
      const onExit = (code: number | null, exitSignal: NodeJS.Signals | null) => {
        if (child === proc) child = undefined
        const message =
          exitSignal === 'SIGABRT' || code === 134
            ? `${where} ran out of memory while rendering (its renderer may use ${limits.memoryMb} MB): a template that allocates without bound`
            : `${where}: its renderer process ended while rendering (${exitSignal ?? `exit code ${code}`})`
        done(() => reject(new ConfigError(message)), false)
      }
      const onAbort = () => done(() => reject(signal!.reason), true)
      // A template that loops (on every input, or only on some) is stopped here, never left running.
      const arm = (): void => {
        clearTimeout(timer)
        timer = setTimeout(
          () => done(() => reject(new ConfigError(`${where} did not finish rendering ${texts.length} prompt(s) within ${ms / 1000} s: a template that loops without end?`)), true),
          ms,
        )
      }
      if (ready.has(proc)) arm()
      else timer = setTimeout(() => done(() => reject(new ConfigError(`${where}: its renderer process did not start within ${STARTUP_MS / 1000} s`)), true), STARTUP_MS)
      signal?.addEventListener('abort', onAbort, { once: true })
      proc.on('message', onMessage).on('exit', onExit)
      busy(proc)
      proc.send({ kind: 'render', id, texts } satisfies TemplateMessage, (error) => {
        if (error) done(() => reject(new ConfigError(`${where}: the prompts could not reach its renderer: ${firstLineOf(error)}`)), true)
      })
    })
  }
  return Object.assign(render, { close: stop })
}

/** An idle renderer does not keep the process alive; one rendering does. */
function idle(proc: ChildProcess): void {
  proc.unref()
  ;(proc.channel as { unref?: () => void } | undefined)?.unref?.()
}

function busy(proc: ChildProcess): void {
  proc.ref()
  ;(proc.channel as { ref?: () => void } | undefined)?.ref?.()
}

/** The model's own template: a string, or the `default` of a list of named templates. */
function modelTemplate(config: Readonly<Record<string, unknown>>, configPath: string): string {
  const value = Object.hasOwn(config, 'chat_template') ? config.chat_template : undefined
  if (typeof value === 'string' && value !== '') return value
  if (Array.isArray(value)) {
    const named = value.find((entry) => entry && typeof entry === 'object' && entry.name === 'default' && typeof entry.template === 'string')
    if (named) return named.template as string
    throw new ConfigError(`${configPath}: chat_template lists named templates but none is "default"; pass the one you want as chatTemplate`)
  }
  throw new ConfigError(`${configPath}: no chat_template, so chatTemplate: true (--chat-template) has nothing to render; pass a template string or drop the option`)
}

function checkKwargs(kwargs: unknown, scorer: string): Record<string, unknown> {
  if (kwargs === undefined) return {}
  if (kwargs === null || typeof kwargs !== 'object' || Array.isArray(kwargs))
    throw new ConfigError(`${scorer}: \`chatTemplateKwargs\` must be an object, e.g. { "enable_thinking": false }`)
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(kwargs)) {
    if (RESERVED.has(key) || key === '__proto__' || key === 'constructor' || key === 'prototype')
      throw new ConfigError(`${scorer}: \`chatTemplateKwargs\` may not set "${key}"`)
    Object.defineProperty(out, key, { value: (kwargs as Record<string, unknown>)[key], enumerable: true })
  }
  return out
}

/** A special token as tokenizer_config.json writes it: a string or an `AddedToken` object. */
function specialToken(value: unknown): string | undefined {
  if (typeof value === 'string') return value
  if (value && typeof value === 'object' && typeof (value as { content?: unknown }).content === 'string') return (value as { content: string }).content
  return undefined
}
