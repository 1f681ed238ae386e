/**
 * Where the worker reads each option letter: its token id in the logits, or, for a model
 * rewritten by `sceptic optimize-model`, its column among the letter rows the readout file
 * names. Pure.
 */
import { LETTERS } from '../../core/decisions.ts'
import { ConfigError } from '../../core/errors.ts'
import { READOUT_FILE, type ReadoutFile } from './readout-file.ts'

/** What {@link letterColumns} checks against. */
export interface LetterTarget {
  /** Path of the model file (for error messages). */
  readonly modelPath: string
  /** Path of the tokenizer.json the ids came from (for error messages). */
  readonly tokenizerPath: string
  /** The optimized readout, or `undefined` for full logits. */
  readonly readoutFile: ReadoutFile | undefined
  /** Columns of the graph's logits, when the graph fixes them. */
  readonly vocab: number | undefined
}

/** Logits columns of the letters whose token ids are `ids` (letters A.. in order). A {@link ConfigError} when they do not fit the model. */
export function letterColumns(ids: Int32Array, target: LetterTarget): Int32Array {
  const { readoutFile, modelPath } = target
  const columns = !readoutFile
    ? ids
    : ids.map((id, i) => {
        const column = readoutFile.letterIds[i] === id ? i : -1
        if (column < 0)
          throw new ConfigError(
            i >= readoutFile.letterIds.length
              ? `${modelPath}: optimized for ${readoutFile.letterIds.length} options (letters A–${LETTERS[readoutFile.letterIds.length - 1]}), but a criterion has ${ids.length}`
              : `${modelPath}: ${READOUT_FILE} says letter ${LETTERS[i]} is token ${readoutFile.letterIds[i]}, but ${target.tokenizerPath} gives ${id}; the tokenizer changed since optimize-model`,
          )
        return column
      })
  if (target.vocab !== undefined)
    for (const id of columns)
      if (id >= target.vocab)
        throw new ConfigError(`${target.tokenizerPath}: letter token id ${id} is outside the model's vocabulary (${target.vocab} logits); the tokenizer does not match ${modelPath}`)
  return columns
}
