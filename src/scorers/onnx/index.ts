/**
 * The public entry `vitest-sceptic/onnx`: the ONNX scorer (./index.ts) and the shared
 * model server (./pool-server.ts), which itself builds on the scorer; listing both here
 * keeps the two modules free of an import cycle.
 */
export { ConfigError, ScorerError } from '../../core/support/errors.ts'
export type { FallibleScoreFn, ScoreContext, ScoreFailure, ScoreFn, ScoreRequest } from '../../core/scorer/contract.ts'
export type { InputPlan, PastInput } from './model/model-io.ts'
export type { ReadoutFile } from './readout/readout-file.ts'
export type { ChatOptions } from '../prompt/chat-template.ts'
export { DTYPES, type Dtype } from './model/dtype.ts'
export { onnxScorer } from './scorer.ts'
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
export { connectScorer, startScorerServer } from './runtime/pool-server.ts'
export type { ConnectOptions, RemoteScorer, ScorerServer, ScorerServerOptions } from './runtime/pool-server.ts'
export type { QuantizationInfo } from './model/quantization-info.ts'
