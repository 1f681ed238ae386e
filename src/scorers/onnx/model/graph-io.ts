/**
 * Reading and writing ONNX graphs with onnx-proto (protobufjs), shared by the graph
 * rewrites (optimize.ts, quantize.ts, the readout made at startup): loading onnx-proto on
 * demand, tensor bytes wherever they live, and external data beside a rewritten graph.
 */
import { closeSync, copyFileSync, existsSync, linkSync, openSync, readSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import type { onnx as OnnxNamespace } from 'onnx-proto'
import { ConfigError } from '../../../core/support/errors.ts'
import { writeMode } from '../../../core/support/files.ts'

/** The decoded shape of the parts of a graph the rewrites touch. */
export interface DecodedNode {
  name: string
  opType: string
  input: string[]
  output: string[]
  attribute: { name: string; ints: (number | { toString(): string })[] }[]
}

/** Decoded messages always carry their repeated fields as arrays; the generated I* types do not say so. */
export interface DecodedGraph {
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
export const ELEMENT_BYTES: Record<number, number> = { 1: 4, 10: 2, 16: 2 }

/** The external data file a tensor's bytes live in (relative to the model), or `undefined` when inline. */
export function externalLocation(tensor: OnnxNamespace.ITensorProto): string | undefined {
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

/**
 * Put `from` at `to` as a hard link (no extra disk for a multi-GB external data file).
 * Where linking fails (another file system), copy it, or, with `copy: false`, return
 * false and leave `to` absent.
 */
export function linkOrCopy(from: string, to: string, copy = true): boolean {
  if (existsSync(to) && statSync(to).ino === statSync(from).ino) return true
  // A FIFO, socket or folder at `to` is refused (NotAFileError), never copied into.
  if (existsSync(to)) writeMode(to)
  try {
    if (existsSync(to)) {
      if (!copy) return false
      copyFileSync(from, to)
    } else linkSync(from, to)
    return true
  } catch {
    if (!copy) return false
    copyFileSync(from, to)
    return true
  }
}

/** onnx-proto, loaded on demand; a {@link ConfigError} naming `command` when it is not installed. */
export function loadOnnxProto(command = 'optimize-model'): typeof OnnxNamespace {
  try {
    return (createRequire(import.meta.url)('onnx-proto') as { onnx: typeof OnnxNamespace }).onnx
  } catch {
    throw new ConfigError(`${command} needs the onnx-proto package to read and write ONNX graphs: npm i -D onnx-proto@8`)
  }
}
