/**
 * The public entry `vitest-sceptic/onnx`: the ONNX scorer (./index.ts) and the shared
 * model server (./pool-server.ts), which itself builds on the scorer; listing both here
 * keeps the two modules free of an import cycle.
 */
export { ConfigError, ScorerError } from '../../core/errors.ts'
export type { FallibleScoreFn, ScoreContext, ScoreFailure, ScoreFn, ScoreRequest } from '../../core/score.ts'
export type { InputPlan, PastInput } from './model-io.ts'
export type { ReadoutFile } from './readout-file.ts'
export type { ChatOptions } from './chat-template.ts'
export { DTYPES, type Dtype } from './dtype.ts'
export { onnxScorer } from './index.ts'
export type {
  ExecutionProvider,
  OnnxModelInfo,
  OnnxOutcome,
  OnnxScorer,
  OnnxScorerOptions,
  OnnxScorerSettings,
  OnnxScorerStats,
  PrefixSharing,
  ReadoutMode,
} from './options.ts'
export { connectScorer, startScorerServer } from './pool-server.ts'
export type { ConnectOptions, RemoteScorer, ScorerServer, ScorerServerOptions } from './pool-server.ts'
export type { QuantizationInfo } from './quantization-info.ts'
