/**
 * Chat templates (docs/onnx.md, "Chat templates"): the model's own `chat_template` from
 * `tokenizer_config.json`, or one of the user's, rendered with `@huggingface/jinja`
 * (the renderer transformers.js uses) exactly as transformers.js' `apply_chat_template`
 * renders it: `messages`, `add_generation_prompt: true`, the special tokens of the
 * config (`bos_token`, `eos_token`, …) and the user's keyword arguments.
 */
import { Template } from '@huggingface/jinja'
import type { Criterion } from '../../core/decisions.ts'
import { ConfigError, firstLineOf } from '../../core/errors.ts'

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

/** Turns the user's prompt text into the text the model reads. */
export type PromptRenderer = (userText: string) => string

/**
 * The text the model reads for each request: the request's prompt (or `template`'s),
 * rendered through the chat template when there is one.
 */
export function promptTexts(
  requests: readonly { readonly state: string; readonly criterion: Criterion; readonly prompt: string }[],
  template: ((state: string, criterion: Criterion) => string) | undefined,
  render: PromptRenderer | undefined,
): string[] {
  return requests.map((request) => {
    const own = template ? template(request.state, request.criterion) : request.prompt
    return render ? render(own) : own
  })
}

// The config keys transformers.js passes to the template (its SPECIAL_TOKEN_ATTRIBUTES).
const SPECIAL_TOKENS = ['bos_token', 'eos_token', 'unk_token', 'sep_token', 'pad_token', 'cls_token', 'mask_token'] as const
// Variables the renderer sets itself; kwargs may not replace them.
const RESERVED = new Set(['messages', 'add_generation_prompt'])

/**
 * The renderer for these options, or `undefined` for the plain prompt. `config` is the
 * parsed tokenizer_config.json (`{}` when absent), `configPath` names it in errors.
 * Checks everything once, here: a missing template, one that does not compile or
 * render, kwargs that are not a plain object or replace a reserved variable.
 */
export function chatRenderer(options: ChatOptions, config: Readonly<Record<string, unknown>>, configPath: string): PromptRenderer | undefined {
  const { chatTemplate, system, chatTemplateKwargs } = options
  if (chatTemplate === undefined || chatTemplate === false) {
    if (system !== undefined || chatTemplateKwargs !== undefined)
      throw new ConfigError('onnxScorer: `system` and `chatTemplateKwargs` apply only with `chatTemplate` (CLI --chat-template)')
    return undefined
  }
  if (typeof chatTemplate !== 'boolean' && typeof chatTemplate !== 'string')
    throw new ConfigError(`onnxScorer: \`chatTemplate\` must be true or a Jinja template string, got ${typeof chatTemplate}`)
  if (system !== undefined && typeof system !== 'string') throw new ConfigError(`onnxScorer: \`system\` must be a string, got ${typeof system}`)
  const kwargs = checkKwargs(chatTemplateKwargs)
  const source = chatTemplate === true ? modelTemplate(config, configPath) : chatTemplate
  const where = chatTemplate === true ? `${configPath}: its chat_template` : 'onnxScorer: `chatTemplate`'
  let template: Template
  try {
    template = new Template(source)
  } catch (error) {
    throw new ConfigError(`${where} does not compile: ${firstLineOf(error)}`)
  }
  const specials: Record<string, string> = {}
  for (const key of SPECIAL_TOKENS) {
    const token = specialToken(config[key])
    if (token) specials[key] = token
  }
  const render: PromptRenderer = (userText) => {
    const messages = [...(system !== undefined ? [{ role: 'system', content: system }] : []), { role: 'user', content: userText }]
    try {
      return template.render({ messages, add_generation_prompt: true, tools: null, documents: null, ...specials, ...kwargs })
    } catch (error) {
      throw new ConfigError(`${where} fails to render: ${firstLineOf(error)}`)
    }
  }
  // Fail at creation, not mid-run: a template that cannot render a simple prompt.
  render('Probe.\nAnswer:')
  return render
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

function checkKwargs(kwargs: unknown): Record<string, unknown> {
  if (kwargs === undefined) return {}
  if (kwargs === null || typeof kwargs !== 'object' || Array.isArray(kwargs))
    throw new ConfigError('onnxScorer: `chatTemplateKwargs` must be an object, e.g. { "enable_thinking": false }')
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(kwargs)) {
    if (RESERVED.has(key) || key === '__proto__' || key === 'constructor' || key === 'prototype')
      throw new ConfigError(`onnxScorer: \`chatTemplateKwargs\` may not set "${key}"`)
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
