/**
 * The sidecar an optimized model carries (`sceptic optimize-model`): which letter each
 * column of its cut-down `logits` is. Kept apart from the optimizer so the scorer can
 * read it without loading onnx-proto.
 */
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { ConfigError, firstLineOf } from '../../../core/support/errors.ts'
import { parseJsonText } from '../../../core/support/json-text.ts'

/** Name of the file describing an optimized model's readout, next to its `model.onnx`. */
export const READOUT_FILE = 'sceptic-readout.json'

/** Contents of {@link READOUT_FILE}. */
export interface ReadoutFile {
  /** Format marker. */
  readonly format: 'sceptic-readout/1'
  /** Token id of the letter in each `logits` column: column `i` is letter `LETTERS[i]`. */
  readonly letterIds: readonly number[]
  /** The vocabulary size of the original head (the tokenizer must fit in it). */
  readonly vocab: number
  /** Positions the rewritten head computes: always the last one. */
  readonly positions: 'last'
  /** The model file this was made from, as given. */
  readonly source: string
}

/** Read {@link READOUT_FILE} next to a model, if there is one. Errors name the file. */
export function readReadoutFile(modelPath: string): ReadoutFile | undefined {
  const path = join(dirname(modelPath), READOUT_FILE)
  if (!existsSync(path)) return undefined
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    throw new ConfigError(`${path}: cannot read it (${(error as NodeJS.ErrnoException).code ?? firstLineOf(error)})`)
  }
  const parsed = parseJsonText(text, (at) => new ConfigError(`${path}: not valid JSON (${at})`)) as ReadoutFile
  if (parsed?.format !== 'sceptic-readout/1' || !Array.isArray(parsed.letterIds) || typeof parsed.vocab !== 'number')
    throw new ConfigError(`${path}: not a sceptic readout file (written by \`sceptic optimize-model\`)`)
  return parsed
}

