/**
 * The readout the scorer runs (docs/onnx.md, "The letter readout at startup"). An Optimum
 * export computes logits over the whole vocabulary at every position; the scorer reads a
 * few letters at the last one. So by default (`readout: 'auto'`) the scorer rewrites the
 * graph once at startup with the letter head (letter-head.ts) into a temporary directory
 * (readout-temp.ts),
 * external data hard-linked beside it (inline weights too, by reference: inline-reference.ts),
 * and the workers load that. Probabilities equal the
 * full readout's within float rounding (1e-5, tested); only the work drops.
 *
 * The full readout stays, and the reason is recorded, when: `readout: 'full'` is asked,
 * onnx-proto is not installed, the graph's head is not recognisable, fewer than two
 * letters are single tokens, or external data cannot be hard-linked into the temporary
 * directory (no multi-GB copy is made). A model already rewritten by `sceptic
 * optimize-model` is loaded as it is.
 */
import { firstLineOf } from '../../../core/support/errors.ts'
import type { PromptRenderer } from '../../prompt/chat-template.ts'
import { loadOnnxProto } from '../model/graph-io.ts'
import type { ModelFiles } from '../model/model-dir.ts'
import type { ReadoutMode } from '../options.ts'
import { optimizeModel } from '../transform/optimize.ts'
import { DEFAULT_ENDINGS, readoutLetterIds, type PromptEnding } from './readout-letters.ts'
import type { ReadoutFile } from './readout-file.ts'
import { removeTemporary, temporaryDir } from './readout-temp.ts'
import { loadTokenizer } from '../prompt/tokenizer.ts'

/** The readout a started scorer runs. */
export interface Readout {
  /** The model file the workers load: the original, or the rewritten graph in a temporary directory. */
  readonly modelPath: string
  /** Which token each `logits` column is; `undefined` for full logits (the column is the token id). */
  readonly readoutFile: ReadoutFile | undefined
  /** For reports and manifests: what the head computes, and why when it is the full vocabulary. */
  readonly summary: string
  /** Remove the temporary directory, if any. Idempotent. */
  dispose(): void
}

/** What {@link prepareReadout} needs. */
export interface ReadoutInputs {
  readonly files: ModelFiles
  /** The mode asked for. */
  readonly mode: ReadoutMode
  /** The model's own `sceptic optimize-model` sidecar, when it has one. */
  readonly sidecar: ReadoutFile | undefined
  /** The chat template's renderer: its prompt ending is served too. */
  readonly render: PromptRenderer | undefined
  /** Stops the renderer's call when the scorer is closed while starting. */
  readonly signal?: AbortSignal | undefined
}

/** The readout for these inputs: the letter head made at startup where possible, else the full logits with the reason. */
export async function prepareReadout({ files, mode, sidecar, render, signal }: ReadoutInputs): Promise<Readout> {
  const full = (why: string): Readout => ({ modelPath: files.modelPath, readoutFile: undefined, summary: `full logits: ${why}`, dispose: () => {} })
  if (sidecar) return { modelPath: files.modelPath, readoutFile: sidecar, summary: 'last position, letter rows (sceptic optimize-model)', dispose: () => {} }
  if (mode === 'full') return full("readout: 'full' was asked for")
  try {
    loadOnnxProto()
  } catch {
    return full('onnx-proto is not installed (npm i -D onnx-proto@8 for the letter readout)')
  }
  const dir = temporaryDir()
  const dispose = () => removeTemporary(dir)
  try {
    const tokenizer = await loadTokenizer(files.dir)
    const endings: PromptEnding[] = [...DEFAULT_ENDINGS, ...(render ? [{ text: (await render(['Answer:'], signal))[0]!, special: false }] : [])]
    const letterIds = readoutLetterIds(tokenizer, endings)
    const result = await optimizeModel(files.dir, dir, { files, letterIds, copyExternalData: false, sideFiles: false, referenceInline: true })
    return { modelPath: result.modelPath, readoutFile: result.readout, summary: `last position, ${result.letters} letter rows (made at startup)`, dispose }
  } catch (error) {
    dispose()
    return full(firstLineOf(error).replace(/^.*?optimize-model cannot rewrite this graph: /, 'the head is not recognisable: '))
  }
}
