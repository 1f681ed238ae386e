/**
 * A model directory's Hugging Face `config.json`, read once for everything that needs it
 * (the context length, the cache shapes). Multimodal exports keep the language model's
 * settings under `text_config`, so both levels are returned.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ConfigError } from '../../../core/support/errors.ts'
import { parseJsonText } from '../../../core/support/json-text.ts'

/** The parsed config: its path, the top level, and `text_config` when present. */
export interface ConfigJson {
  /** Path of the file (for error messages). */
  readonly path: string
  /** The top-level object. */
  readonly top: Readonly<Record<string, unknown>>
  /** `text_config`, for multimodal exports; `undefined` when absent. */
  readonly text: Readonly<Record<string, unknown>> | undefined
}

/** Read `dir/config.json`; `undefined` without the file. A file that is not JSON is a {@link ConfigError} naming it. */
export function readConfigJson(dir: string): ConfigJson | undefined {
  const path = join(dir, 'config.json')
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT') return undefined
    // A config.json that is a folder or unreadable is not "no config": its shapes would be silently dropped.
    throw new ConfigError(`${path}: cannot read it (${code ?? 'error'})`)
  }
  const parsed = parseJsonText(text.replace(/^\uFEFF/, ''), (at) => new ConfigError(`${path}: not valid JSON (${at})`))
  const top = isObject(parsed) ? parsed : {}
  return { path, top, text: isObject(top.text_config) ? top.text_config : undefined }
}

/** The first positive integer among `keys` in `scope` (own keys only); `undefined` when none. */
export function positiveInteger(scope: Readonly<Record<string, unknown>>, keys: readonly string[]): number | undefined {
  for (const key of keys) {
    const value = Object.hasOwn(scope, key) ? scope[key] : undefined
    if (typeof value === 'number' && Number.isInteger(value) && value > 0) return value
  }
  return undefined
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
