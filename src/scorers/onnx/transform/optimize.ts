/**
 * `sceptic optimize-model IN_DIR --model-out DIR`, and the scorer's readout made at
 * startup: the model's graph rewritten by the letter head (letter-head.ts) into another
 * directory. `sceptic-readout.json` next to the new model tells the scorer which token
 * each `logits` column is. Only the graph file is written: external data files are
 * hard-linked (copied where linking fails, unless told not to), so a 2 GB model costs no
 * extra disk.
 *
 * onnx-proto (protobufjs) is loaded on demand (graph-io.ts).
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { writeFileAtomicSync } from '../../../core/support/files.ts'
import { dirname, join, relative, resolve } from 'node:path'
import type { onnx as OnnxNamespace } from 'onnx-proto'
import { ConfigError, firstLineOf } from '../../../core/support/errors.ts'
import { externalLocation, linkOrCopy, loadOnnxProto, type DecodedGraph } from '../model/graph-io.ts'
import { cutLetterHead } from '../readout/letter-head.ts'
import { INLINE_SOURCE, referenceInlineWeights } from './inline-reference.ts'
import { locateModel, type ModelFiles } from '../model/model-dir.ts'
import { DEFAULT_ENDINGS, readoutLetterIds } from '../readout/readout-letters.ts'
import { QUANTIZATION_FILE } from '../model/quantization-info.ts'
import { READOUT_FILE, type ReadoutFile } from '../readout/readout-file.ts'
import { loadTokenizer } from '../prompt/tokenizer.ts'

/** What {@link optimizeModel} did. */
export interface OptimizeResult {
  /** The rewritten model file. */
  readonly modelPath: string
  /** Letters (columns) the rewritten head computes. */
  readonly letters: number
  /** Original vocabulary size (columns before). */
  readonly vocab: number
  /** External data files linked or copied next to the new model. */
  readonly externalFiles: readonly string[]
  /** Size of the rewritten graph file, bytes. */
  readonly bytes: number
  /** What the sidecar says: the token id of each column. */
  readonly readout: ReadoutFile
}

/** Options of {@link optimizeModel}. */
export interface OptimizeOptions {
  /** The model files to rewrite. Default: the directory's default variant (`locateModel(inDir)`). */
  readonly files?: ModelFiles
  /** Token ids the head keeps, one column each. Default: the letters after the plain prompt and after a newline (readout-letters.ts). */
  readonly letterIds?: readonly number[]
  /** Copy an external data file where a hard link fails. Default true; false refuses with a {@link ConfigError} instead (no multi-GB copy). */
  readonly copyExternalData?: boolean
  /** Copy tokenizer.json, config.json and the like beside the new model. Default true. */
  readonly sideFiles?: boolean
  /**
   * Inline weights stay in the original file, hard-linked beside the new graph as its external
   * data (inline-reference.ts), instead of being written again. Where the link fails they are
   * written inline as usual. Default false (the CLI's output stands on its own).
   */
  readonly referenceInline?: boolean
}

/** Files next to the model that belong to it and are copied as they are. */
export const SIDE_FILES = ['tokenizer.json', 'tokenizer_config.json', 'special_tokens_map.json', 'config.json', 'generation_config.json']

/**
 * Rewrite the model of `inDir` into `outDir` (created; its `model.onnx` replaced).
 * Throws a {@link ConfigError} naming the file when the graph is not recognisable (see
 * {@link cutLetterHead}) or fewer than two letters are single tokens.
 */
export async function optimizeModel(inDir: string, outDir: string, options: OptimizeOptions = {}): Promise<OptimizeResult> {
  const files = options.files ?? locateModel(inDir)
  const out = resolve(outDir)
  if (out === files.dir || out === dirname(files.modelPath)) throw new ConfigError(`${outDir}: the output directory must differ from the input (${inDir}); the rewrite does not work in place`)
  const onnx = loadOnnxProto()
  const letterIds = options.letterIds ?? readoutLetterIds(await loadTokenizer(files.dir), DEFAULT_ENDINGS)
  if (letterIds.length < 2) throw new ConfigError(`${files.tokenizerPath}: fewer than two option letters are single tokens; nothing to optimize for`)

  const path = files.modelPath
  const fail = (why: string): never => {
    throw new ConfigError(`${path}: optimize-model cannot rewrite this graph: ${why}`)
  }
  let model: OnnxNamespace.ModelProto
  const file = readFileSync(path)
  try {
    model = onnx.ModelProto.decode(file)
  } catch (error) {
    return fail(`not an ONNX model (${firstLineOf(error)})`)
  }
  const { vocab, letters } = cutLetterHead(onnx, model, letterIds, { modelDir: dirname(path), tokenizerPath: files.tokenizerPath, fail })
  const readout: ReadoutFile = { format: 'sceptic-readout/1', letterIds: [...letterIds], vocab, positions: 'last', source: path }
  const graph = model.graph as unknown as DecodedGraph

  mkdirSync(out, { recursive: true })
  const modelPath = join(out, 'model.onnx')
  if (options.referenceInline && linkOrCopy(path, join(out, INLINE_SOURCE), false)) referenceInlineWeights(onnx, graph.initializer, file)
  const bytes = onnx.ModelProto.encode(model).finish()
  writeFileAtomicSync(modelPath, bytes, { fsync: false })
  const externalFiles = new Set<string>()
  for (const tensor of graph.initializer) {
    const location = externalLocation(tensor)
    if (location !== undefined && location !== INLINE_SOURCE) externalFiles.add(location)
  }
  for (const location of externalFiles) {
    const from = join(dirname(path), location)
    const to = join(out, location)
    if (relative(out, to).startsWith('..')) fail(`external data location "${location}" points outside the model directory`)
    mkdirSync(dirname(to), { recursive: true })
    if (!linkOrCopy(from, to, options.copyExternalData ?? true)) fail(`external data file ${from} cannot be hard-linked into ${out} (another file system?) and copying it was not asked for`)
  }
  // A calibrated quantization's record goes along: the letter head gives the same probabilities.
  if (options.sideFiles ?? true)
    for (const name of [...SIDE_FILES, QUANTIZATION_FILE]) if (existsSync(join(files.dir, name))) writeFileAtomicSync(join(out, name), readFileSync(join(files.dir, name)), { fsync: false })
  writeFileAtomicSync(join(out, READOUT_FILE), JSON.stringify(readout, null, 2) + '\n', { fsync: false })
  return { modelPath, letters, vocab, externalFiles: [...externalFiles], bytes: bytes.length, readout }
}
