/**
 * The letter head: the graph rewrite behind `sceptic optimize-model` and the readout made
 * at startup. An Optimum export computes `[batch, seq, vocab]` logits, and the readout
 * reads a handful of them at one position; with a 150k vocabulary that head is a quarter
 * of the model's FLOPs. The rewrite puts `Slice(hidden, last position)` before the head
 * and cuts the head weight (and bias) to the letter columns, read from the weight's bytes
 * (inline or external data). The output keeps its name `logits`, now `[batch, 1, letters]`
 * (docs/onnx.md, "Prefix sharing and the optimized readout").
 */
import type { onnx as OnnxNamespace } from 'onnx-proto'
import { ELEMENT_BYTES, tensorReader, toNumber, type DecodedGraph, type DecodedNode } from '../model/graph-io.ts'
import { largest } from '../../../core/support/spreadless.ts'

/** What {@link cutLetterHead} did. */
export interface LetterHead {
  /** Columns of the head before: the vocabulary size. */
  readonly vocab: number
  /** Columns after: one per entry of the letter ids. */
  readonly letters: number
}

/**
 * Rewrite `model` in place so its `logits` are the columns `letterIds` at the last
 * position. `fail` throws (a ConfigError naming the file) when the graph is not
 * recognisable: the `logits` output must come from `MatMul(hidden, W)` or
 * `Add(MatMul(hidden, W), b)`, optionally behind a `Cast`, with `W` (or `Transpose(W)`)
 * a constant; the default-domain opset must be 13 or newer.
 */
export function cutLetterHead(
  onnx: typeof OnnxNamespace,
  model: OnnxNamespace.ModelProto,
  letterIds: readonly number[],
  { modelDir, tokenizerPath, fail }: { readonly modelDir: string; readonly tokenizerPath: string; readonly fail: (why: string) => never },
): LetterHead {
  const graph = (model.graph ?? fail('the model has no graph')) as unknown as DecodedGraph
  if (model.metadataProps.some((p) => p.key === 'sceptic.readout')) fail('it is already optimized (metadata "sceptic.readout")')
  const opset = model.opsetImport.find((o) => !o.domain)?.version
  if (opset !== undefined && opset !== null && toNumber(opset) < 13) fail(`default-domain opset ${opset}; 13 or newer expected`)
  const found = findHead(graph, fail)
  const { weight, transposed, bias, biasNode, logitsOut } = found
  const dims = (weight.dims ?? []).map(toNumber)
  if (dims.length !== 2) fail(`the LM head's weight "${weight.name}" has ${dims.length} dimensions; 2 expected`)
  const [D, V] = transposed ? [dims[1]!, dims[0]!] : [dims[0]!, dims[1]!]
  const declared = logitsOut.type?.tensorType?.shape?.dim?.[2]?.dimValue
  if (declared !== undefined && declared !== null && toNumber(declared) !== 0 && toNumber(declared) !== V) fail(`"logits" declares ${declared} columns but the head weight has ${V}`)
  if (letterIds.some((id) => id >= V)) fail(`letter token ids reach ${largest(letterIds)} but the head has only ${V} columns; does ${tokenizerPath} belong to this model?`)
  const elem = ELEMENT_BYTES[weight.dataType ?? 0] ?? fail(`the head weight's element type ${weight.dataType} is not supported (float32, float16, bfloat16)`)
  const K = letterIds.length
  const initializer = (name: string) => graph.initializer.find((t) => t.name === name)
  const unique = (base: string): string => {
    let name = base
    for (let i = 1; graph.node.some((n) => n.output.includes(name)) || initializer(name); i++) name = `${base}_${i}`
    return name
  }
  const weightName = unique('sceptic_letter_head')
  graph.initializer.push(onnx.TensorProto.create({ name: weightName, dims: [D, K], dataType: weight.dataType, rawData: cutColumns(weight, transposed, D, V, letterIds, elem, modelDir, fail) }))
  if (bias) {
    const biasElem = ELEMENT_BYTES[bias.dataType ?? 0] ?? fail(`the head bias's element type ${bias.dataType} is not supported`)
    const read = tensorReader(bias, modelDir, fail)
    const cutBias = new Uint8Array(K * biasElem)
    letterIds.forEach((id, k) => cutBias.set(read(id * biasElem, biasElem), k * biasElem))
    read.close()
    const biasName = unique('sceptic_letter_bias')
    graph.initializer.push(onnx.TensorProto.create({ name: biasName, dims: [K], dataType: bias.dataType, rawData: cutBias }))
    biasNode!.input = biasNode!.input.map((name) => (name === bias.name ? biasName : name))
  }
  sliceBeforeHead(onnx, graph, found, weightName, unique)
  const shape = logitsOut.type?.tensorType?.shape
  if (shape?.dim && shape.dim.length === 3) {
    shape.dim[1] = onnx.TensorShapeProto.Dimension.create({ dimValue: 1 })
    shape.dim[2] = onnx.TensorShapeProto.Dimension.create({ dimValue: K })
  }
  model.metadataProps.push(onnx.StringStringEntryProto.create({ key: 'sceptic.readout', value: JSON.stringify({ letterIds, vocab: V, positions: 'last' }) }))
  return { vocab: V, letters: K }
}

/** The recognised LM head: its MatMul, the constant weight (maybe behind a Transpose), the bias Add and the Cast, if any. */
interface FoundHead {
  readonly logitsOut: DecodedGraph['output'][number]
  readonly head: DecodedNode
  readonly cast: DecodedNode | undefined
  readonly bias: OnnxNamespace.ITensorProto | undefined
  readonly biasNode: DecodedNode | undefined
  readonly weight: OnnxNamespace.ITensorProto
  readonly transposed: boolean
}

function findHead(graph: DecodedGraph, fail: (why: string) => never): FoundHead {
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
  return { logitsOut, head, cast, bias, biasNode, weight, transposed }
}

/** The weight cut to the letter columns, `[D, K]`, in the weight's own element type. */
function cutColumns(weight: OnnxNamespace.ITensorProto, transposed: boolean, D: number, V: number, letterIds: readonly number[], elem: number, modelDir: string, fail: (why: string) => never): Uint8Array {
  const K = letterIds.length
  const source = tensorReader(weight, modelDir, fail)
  const cut = new Uint8Array(D * K * elem)
  for (let k = 0; k < K; k++) {
    if (transposed) {
      // [V, D]: the letter's row is contiguous.
      const row = source(letterIds[k]! * D * elem, D * elem)
      for (let d = 0; d < D; d++) cut.set(row.subarray(d * elem, (d + 1) * elem), (d * K + k) * elem)
    } else for (let d = 0; d < D; d++) cut.set(source((d * V + letterIds[k]!) * elem, elem), (d * K + k) * elem)
  }
  source.close()
  return cut
}

/** Put `Slice(hidden, last position)` before the head, point it at the cut weight, and drop what only the full head read. */
function sliceBeforeHead(onnx: typeof OnnxNamespace, graph: DecodedGraph, { head, weight, transposed, bias, biasNode, cast }: FoundHead, weightName: string, unique: (base: string) => string): void {
  const producer = (name: string) => graph.node.find((n) => n.output.includes(name))
  const consumers = (name: string) => graph.node.filter((n) => n.input.includes(name))
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
}
