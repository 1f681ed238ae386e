// The built ONNX scorer typed with its `@internal` test hooks (`faults`, `pool`), which the
// published declaration files leave out (stripInternal).
import { onnxScorer as built } from '../../../dist/onnx/index.js'
import type { onnxScorer as source } from '../../../src/scorers/onnx/scorer.ts'
import type { OnnxScorer } from '../../../src/scorers/onnx/options.ts'

export const onnxScorer = built as unknown as typeof source
export type { OnnxScorer }

/** The worker pool of a built scorer (undefined until its first call). */
export const poolOf = (scorer: object): OnnxScorer['pool'] => (scorer as OnnxScorer).pool
