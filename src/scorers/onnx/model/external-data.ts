/**
 * Moving large initializers out of an ONNX graph into one external data blob, as
 * `onnx.save_model(..., save_as_external_data=True)` does: each moved tensor gets
 * `data_location = EXTERNAL` and `location`/`offset`/`length` entries.
 */
import type { onnx as OnnxNamespace } from 'onnx-proto'

/** Where the blob goes and which tensors move. */
export interface ExternalDataOptions {
  /** The blob's file name, relative to the model file. */
  readonly location: string
  /** Tensors smaller than this many bytes stay inline. */
  readonly minBytes: number
  /** Offset alignment in bytes (ORT memory-maps the blob). */
  readonly align: number
}

/**
 * Move the raw data of every tensor of at least `minBytes` into one blob, in place, and
 * return the blob. `externalLocation` is `onnx.TensorProto.DataLocation.EXTERNAL`.
 */
export function externalize(
  tensors: Iterable<OnnxNamespace.ITensorProto>,
  externalLocation: number,
  { location, minBytes, align }: ExternalDataOptions,
): Uint8Array {
  const chunks: Uint8Array[] = []
  let size = 0
  for (const tensor of tensors) {
    const raw = tensor.rawData
    if (!raw || raw.length < minBytes) continue
    const offset = Math.ceil(size / align) * align
    if (offset > size) chunks.push(new Uint8Array(offset - size))
    chunks.push(raw)
    size = offset + raw.length
    tensor.rawData = new Uint8Array(0)
    tensor.dataLocation = externalLocation
    tensor.externalData = [
      { key: 'location', value: location },
      { key: 'offset', value: String(offset) },
      { key: 'length', value: String(raw.length) },
    ]
  }
  const data = new Uint8Array(size)
  let at = 0
  for (const chunk of chunks) {
    data.set(chunk, at)
    at += chunk.length
  }
  return data
}
