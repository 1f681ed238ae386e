/**
 * The letter head made at startup rewrites only the graph, but a model whose weights are
 * inline (an Optimum export under 2 GB) would be re-encoded and written whole into the
 * temporary directory: a 2 GB copy before the workers can load it. Instead the rewritten
 * graph names the original file, hard-linked beside it, as the external data of its large
 * initializers, at the byte offsets where their raw data already sits: the same bytes, no copy.
 */
import type { onnx as OnnxNamespace } from 'onnx-proto'

/** Name of the hard link to the original model file inside the rewritten model's directory. */
export const INLINE_SOURCE = 'sceptic-source.onnx'

/** Inline tensors smaller than this stay inline (the cut head, small constants). */
const MIN_BYTES = 1 << 16

/**
 * Point every inline `raw_data` of at least {@link MIN_BYTES} that is a view of `file` (the
 * bytes the model was decoded from) at {@link INLINE_SOURCE}, in place. Returns how many moved.
 */
export function referenceInlineWeights(onnx: typeof OnnxNamespace, tensors: Iterable<OnnxNamespace.ITensorProto>, file: Uint8Array): number {
  let moved = 0
  for (const tensor of tensors) {
    const raw = tensor.rawData
    if (!raw || raw.length < MIN_BYTES || tensor.dataLocation === onnx.TensorProto.DataLocation.EXTERNAL || raw.buffer !== file.buffer) continue
    const offset = raw.byteOffset - file.byteOffset
    if (offset < 0 || offset + raw.length > file.length) continue
    tensor.dataLocation = onnx.TensorProto.DataLocation.EXTERNAL
    tensor.externalData = [
      { key: 'location', value: INLINE_SOURCE },
      { key: 'offset', value: String(offset) },
      { key: 'length', value: String(raw.length) },
    ]
    tensor.rawData = new Uint8Array(0)
    moved++
  }
  return moved
}
