/**
 * `sceptic optimize-model IN_DIR --model-out DIR`: rewrite a decoder so its LM head runs on
 * the last position only and only for the option-letter rows. Optimum exports compute
 * `[batch, seq, vocab]` logits, and the readout reads `vocab`-many numbers at one
 * position; with a 150k vocabulary that head is a quarter of the model's FLOPs and
 * hundreds of MB of output per run (1.4–1.8× on a 0.5B shape; docs/onnx.md#prefix-sharing-and-the-optimized-readout).
 *
 * The rewrite: `Slice(hidden, last position)` before the head, and the head weight
 * (and bias) cut to the letter columns, computed here from the weight's bytes (inline
 * or in external data, `.onnx_data`). The output keeps its name `logits`, now
 * `[batch, 1, letters]`; `sceptic-readout.json` next to the model tells the scorer
 * which column is which letter. Only the graph file is rewritten: external data files
 * are hard-linked (copied where linking fails), so a 2 GB model costs no extra disk.
 *
 * onnx-proto (protobufjs) is loaded on demand, so only this command needs it.
 */
import { closeSync, copyFileSync, existsSync, linkSync, mkdirSync, openSync, readFileSync, readSync, statSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, relative, resolve } from 'node:path'
import type { onnx as OnnxNamespace } from 'onnx-proto'
import { ConfigError, firstLineOf } from '../../core/errors.ts'
import { LETTERS } from '../../core/decisions.ts'
import { locateModel } from './model-dir.ts'
import { READOUT_FILE, type ReadoutFile } from './readout-file.ts'
import { loadTokenizer } from './tokenizer.ts'

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
}

/** Files next to the model that belong to it and are copied as they are. */
export const SIDE_FILES = ['tokenizer.json', 'tokenizer_config.json', 'special_tokens_map.json', 'config.json', 'generation_config.json']

/**
 * Rewrite the model of `inDir` into `outDir` (created; its `model.onnx` replaced).
 * Throws a {@link ConfigError} naming the file when the graph is not recognisable: the
 * `logits` output must come from `MatMul(hidden, W)` or `Add(MatMul(hidden, W), b)`,
 * optionally behind a `Cast`, with `W` (or `Transpose(W)`) a constant.
 */
export async function optimizeModel(inDir: string, outDir: string): Promise<OptimizeResult> {
  const files = locateModel(inDir)
  const out = resolve(outDir)
  if (out === files.dir || out === dirname(files.modelPath)) throw new ConfigError(`${outDir}: the output directory must differ from the input (${inDir}); the rewrite does not work in place`)
  const onnx = loadOnnxProto()
  const tokenizer = await loadTokenizer(files.dir)
  const letterIds: number[] = []
  for (let i = 0; i < LETTERS.length; i++) {
    try {
      letterIds.push(tokenizer.letterIds(i + 1)[i]!)
    } catch {
      break // a letter that is not one token: the readout cannot use it, so neither can the head
    }
  }
  if (letterIds.length < 2) throw new ConfigError(`${files.tokenizerPath}: fewer than two option letters are single tokens; nothing to optimize for`)

  const path = files.modelPath
  const fail = (why: string): never => {
    throw new ConfigError(`${path}: optimize-model cannot rewrite this graph: ${why}`)
  }
  let model: OnnxNamespace.ModelProto
  try {
    model = onnx.ModelProto.decode(readFileSync(path))
  } catch (error) {
    return fail(`not an ONNX model (${firstLineOf(error)})`)
  }
  // Decoded messages always carry their repeated fields as arrays; the generated I* types do not say so.
  const graph = (model.graph ?? fail('the model has no graph')) as unknown as DecodedGraph
  if (model.metadataProps.some((p) => p.key === 'sceptic.readout')) fail('it is already optimized (metadata "sceptic.readout")')
  const opset = model.opsetImport.find((o) => !o.domain)?.version
  if (opset !== undefined && opset !== null && toNumber(opset) < 13) fail(`default-domain opset ${opset}; 13 or newer expected`)
  const logitsOut = graph.output.find((o) => o.name === 'logits') ?? fail('no "logits" output')
  const producer = (name: string) => graph.node.find((n) => n.output.includes(name))
  const consumers = (name: string) => graph.node.filter((n) => n.input.includes(name))
  const initializer = (name: string) => graph.initializer.find((t) => t.name === name)

  let head = producer('logits') ?? fail('"logits" is not produced by any node')
  // An export that upcasts half-precision logits (Cast to float32) is the same head behind one elementwise op.
  let cast: DecodedNode | undefined
  if (head.opType === 'Cast') {
    cast = head
    head = producer(head.input[0]!) ?? fail('"logits" is a Cast of a graph input')
    if (consumers(head.output[0]!).length !== 1) fail('the value cast to "logits" feeds other nodes too')
  }
  let bias: OnnxNamespace.ITensorProto | undefined
  let biasNode: DecodedNode | undefined
  if (head.opType === 'Add') {
    const [a, b] = head.input as [string, string]
    const fromMatMul = [a, b].map((name) => producer(name)).findIndex((n) => n?.opType === 'MatMul')
    const constant = initializer(fromMatMul === 0 ? b : a)
    if (fromMatMul < 0 || !constant) fail('"logits" comes from an Add that is not MatMul(hidden, W) + constant bias')
    biasNode = head
    bias = constant
    head = producer(head.input[fromMatMul]!)!
    if (consumers(head.output[0]!).length !== 1) fail('the LM head MatMul feeds other nodes too')
  }
  if (head.opType !== 'MatMul') fail(`"logits" is produced by a ${head.opType} node ("${head.name}"); expected the LM head MatMul(hidden, W), optionally + bias`)
  let weight = initializer(head.input[1]!)
  let transposed = false
  if (!weight) {
    const t = producer(head.input[1]!)
    const perm = t?.attribute.find((a) => a.name === 'perm')?.ints.map(toNumber)
    if (t?.opType === 'Transpose' && (!perm || (perm[0] === 1 && perm[1] === 0)) && initializer(t.input[0]!)) {
      weight = initializer(t.input[0]!)
      transposed = true
    }
  }
  if (!weight) return fail(`the LM head's weight "${head.input[1]}" is not a constant (initializer)`)
  const dims = (weight.dims ?? []).map(toNumber)
  if (dims.length !== 2) fail(`the LM head's weight "${weight.name}" has ${dims.length} dimensions; 2 expected`)
  const [D, V] = transposed ? [dims[1]!, dims[0]!] : [dims[0]!, dims[1]!]
  const declared = logitsOut.type?.tensorType?.shape?.dim?.[2]?.dimValue
  if (declared !== undefined && declared !== null && toNumber(declared) !== 0 && toNumber(declared) !== V) fail(`"logits" declares ${declared} columns but the head weight has ${V}`)
  if (letterIds.some((id) => id >= V)) fail(`letter token ids reach ${Math.max(...letterIds)} but the head has only ${V} columns; does ${files.tokenizerPath} belong to this model?`)
  const elem = ELEMENT_BYTES[weight.dataType ?? 0] ?? fail(`the head weight's element type ${weight.dataType} is not supported (float32, float16, bfloat16)`)
  const K = letterIds.length

  // The weight cut to the letter columns, [D, K], in the weight's own element type.
  const source = tensorReader(weight, dirname(path), fail)
  const cut = new Uint8Array(D * K * elem)
  for (let k = 0; k < K; k++) {
    if (transposed) {
      // [V, D]: the letter's row is contiguous.
      const row = source(letterIds[k]! * D * elem, D * elem)
      for (let d = 0; d < D; d++) cut.set(row.subarray(d * elem, (d + 1) * elem), (d * K + k) * elem)
    } else for (let d = 0; d < D; d++) cut.set(source((d * V + letterIds[k]!) * elem, elem), (d * K + k) * elem)
  }
  source.close()
  const unique = (base: string): string => {
    let name = base
    for (let i = 1; graph.node.some((n) => n.output.includes(name)) || initializer(name); i++) name = `${base}_${i}`
    return name
  }
  const weightName = unique('sceptic_letter_head')
  graph.initializer.push(onnx.TensorProto.create({ name: weightName, dims: [D, K], dataType: weight.dataType, rawData: cut }))
  if (bias) {
    const biasElem = ELEMENT_BYTES[bias.dataType ?? 0] ?? fail(`the head bias's element type ${bias.dataType} is not supported`)
    const read = tensorReader(bias, dirname(path), fail)
    const cutBias = new Uint8Array(K * biasElem)
    letterIds.forEach((id, k) => cutBias.set(read(id * biasElem, biasElem), k * biasElem))
    read.close()
    const biasName = unique('sceptic_letter_bias')
    graph.initializer.push(onnx.TensorProto.create({ name: biasName, dims: [K], dataType: bias.dataType, rawData: cutBias }))
    biasNode!.input = biasNode!.input.map((name) => (name === bias!.name ? biasName : name))
  }

  // Slice the hidden states to the last position before the head: axis -2 is the sequence axis of [batch, seq, hidden].
  const hidden = head.input[0]!
  const last = unique('sceptic_last_hidden')
  const c = (name: string, value: bigint) => {
    const unique_ = unique(name)
    graph.initializer.push(onnx.TensorProto.create({ name: unique_, dims: [1], dataType: onnx.TensorProto.DataType.INT64, rawData: new Uint8Array(BigInt64Array.of(value).buffer) }))
    return unique_
  }
  const sliceNode = onnx.NodeProto.create({
    name: unique('sceptic_slice_last'),
    opType: 'Slice',
    input: [hidden, c('sceptic_minus_one', -1n), c('sceptic_int64_max', 9223372036854775807n), c('sceptic_axis_seq', -2n)],
    output: [last],
  })
  graph.node.splice(graph.node.indexOf(head), 0, sliceNode as unknown as DecodedNode)
  const transpose = transposed ? producer(head.input[1]!) : undefined
  head.input = [last, weightName]
  // Drop what only the full head read: its Transpose, then its weight (a tied embedding still reads it).
  if (transpose && consumers(transpose.output[0]!).length === 0) graph.node.splice(graph.node.indexOf(transpose), 1)
  const stillUsed = (name: string) => graph.node.some((n) => n.input.includes(name))
  for (const name of [weight.name!, bias?.name].filter((n): n is string => !!n))
    if (!stillUsed(name)) graph.initializer.splice(graph.initializer.findIndex((t) => t.name === name), 1)
  // Stale shape annotations of the rewritten values would contradict the new shapes.
  const rewritten = new Set([...head.output, ...(biasNode?.output ?? []), ...(cast?.output ?? [])])
  graph.valueInfo = graph.valueInfo.filter((v) => !rewritten.has(v.name!))
  const shape = logitsOut.type?.tensorType?.shape
  if (shape?.dim && shape.dim.length === 3) {
    shape.dim[1] = onnx.TensorShapeProto.Dimension.create({ dimValue: 1 })
    shape.dim[2] = onnx.TensorShapeProto.Dimension.create({ dimValue: K })
  }
  const readout: ReadoutFile = { format: 'sceptic-readout/1', letterIds, vocab: V, positions: 'last', source: path }
  model.metadataProps.push(onnx.StringStringEntryProto.create({ key: 'sceptic.readout', value: JSON.stringify({ letterIds, vocab: V, positions: 'last' }) }))

  mkdirSync(out, { recursive: true })
  const modelPath = join(out, 'model.onnx')
  const bytes = onnx.ModelProto.encode(model).finish()
  writeFileSync(modelPath, bytes)
  const externalFiles = new Set<string>()
  for (const tensor of graph.initializer) {
    const location = externalLocation(tensor)
    if (location !== undefined) externalFiles.add(location)
  }
  for (const location of externalFiles) {
    const from = join(dirname(path), location)
    const to = join(out, location)
    if (relative(out, to).startsWith('..')) fail(`external data location "${location}" points outside the model directory`)
    mkdirSync(dirname(to), { recursive: true })
    linkOrCopy(from, to)
  }
  for (const name of SIDE_FILES) if (existsSync(join(files.dir, name))) copyFileSync(join(files.dir, name), join(out, name))
  writeFileSync(join(out, READOUT_FILE), JSON.stringify(readout, null, 2) + '\n')
  return { modelPath, letters: K, vocab: V, externalFiles: [...externalFiles], bytes: bytes.length }
}

/** The decoded shape of the parts of a graph the rewrite touches. */
interface DecodedNode {
  name: string
  opType: string
  input: string[]
  output: string[]
  attribute: { name: string; ints: (number | { toString(): string })[] }[]
}
interface DecodedGraph {
  node: DecodedNode[]
  initializer: OnnxNamespace.ITensorProto[]
  output: OnnxNamespace.IValueInfoProto[]
  valueInfo: OnnxNamespace.IValueInfoProto[]
}

/** protobufjs gives int64 fields as numbers, or as Long objects when the `long` package is present. */
export function toNumber(value: number | { toString(): string }): number {
  return typeof value === 'number' ? value : Number(value.toString())
}

/** Bytes per element of the float types a head can have: FLOAT, FLOAT16, BFLOAT16. */
const ELEMENT_BYTES: Record<number, number> = { 1: 4, 10: 2, 16: 2 }

function externalLocation(tensor: OnnxNamespace.ITensorProto): string | undefined {
  if (tensor.dataLocation !== 1) return undefined
  return tensor.externalData?.find((e) => e.key === 'location')?.value ?? undefined
}

/** Random access to a tensor's bytes, wherever they live (raw_data, float_data, external file). */
export function tensorReader(tensor: OnnxNamespace.ITensorProto, modelDir: string, fail: (why: string) => never): ((offset: number, length: number) => Uint8Array) & { close(): void } {
  const location = externalLocation(tensor)
  if (location !== undefined) {
    const entry = (key: string) => tensor.externalData?.find((e) => e.key === key)?.value
    const base = Number(entry('offset') ?? 0) // a decimal string in the proto
    const file = join(modelDir, location)
    if (!existsSync(file)) fail(`external data file ${file} (of "${tensor.name}") is missing`)
    const fd = openSync(file, 'r')
    const read = (offset: number, length: number): Uint8Array => {
      const buffer = new Uint8Array(length)
      const got = readSync(fd, buffer, 0, length, base + offset)
      if (got !== length) fail(`external data file ${file} ends before "${tensor.name}" does`)
      return buffer
    }
    return Object.assign(read, { close: () => closeSync(fd) })
  }
  let raw: Uint8Array
  if (tensor.rawData && tensor.rawData.length > 0) raw = tensor.rawData
  else if (tensor.floatData && tensor.floatData.length > 0) raw = new Uint8Array(Float32Array.from(tensor.floatData).buffer)
  else if (tensor.int32Data && tensor.int32Data.length > 0 && tensor.dataType !== 1) {
    // float16/bfloat16 stored in int32_data, one value per int32.
    const halves = Uint16Array.from(tensor.int32Data)
    raw = new Uint8Array(halves.buffer)
  } else return fail(`the data of "${tensor.name}" is empty`)
  const read = (offset: number, length: number): Uint8Array => raw.subarray(offset, offset + length)
  return Object.assign(read, { close: () => {} })
}

function linkOrCopy(from: string, to: string): void {
  if (existsSync(to)) {
    if (statSync(to).ino === statSync(from).ino) return
  }
  try {
    if (existsSync(to)) copyFileSync(from, to)
    else linkSync(from, to)
  } catch {
    copyFileSync(from, to)
  }
}

export function loadOnnxProto(command = 'optimize-model'): typeof OnnxNamespace {
  try {
    return (createRequire(import.meta.url)('onnx-proto') as { onnx: typeof OnnxNamespace }).onnx
  } catch {
    throw new ConfigError(`${command} needs the onnx-proto package to read and write ONNX graphs: npm i -D onnx-proto@8`)
  }
}
