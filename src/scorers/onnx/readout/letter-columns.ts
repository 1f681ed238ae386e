/**
 * Where the worker reads each option letter: its token id in the logits, or, for a letter
 * head (made at startup or by `sceptic optimize-model`), the column whose token id the
 * readout file names. Pure.
 */
import { LETTERS } from '../../../core/decisions/schema.ts'
import { ConfigError } from '../../../core/support/errors.ts'
import type { ReadoutFile } from './readout-file.ts'

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
        const column = readoutFile.letterIds.indexOf(id)
        if (column < 0)
          throw new ConfigError(
            `${modelPath}: the letter head has no row for token ${id} (letter ${LETTERS[i]} after this prompt); it keeps the letters' tokens after "Answer:" and after a newline. ` +
              `Score this prompt with the full logits (onnxScorer readout: 'full', on the model as exported)`,
          )
        return column
      })
  if (target.vocab !== undefined)
    for (const id of columns)
      if (id >= target.vocab)
        throw new ConfigError(`${target.tokenizerPath}: letter token id ${id} is outside the model's vocabulary (${target.vocab} logits); the tokenizer does not match ${modelPath}`)
  return columns
}
