/**
 * The merged run (`sceptic merge`, the Vitest merge of decision shards): the parts replayed
 * through the evaluator with their recorded settings, so it computes exactly what an unsharded run would (docs/scaling-out.md).
 */
import { evaluateWithScorer } from '../evaluate/index.ts'
import type { EvaluateOptions } from '../evaluate/options.ts'
import type { EvalResult } from '../result/result.ts'
import type { Reassembled } from './part-file.ts'

/** What a merge may add to the recorded settings. */
export interface ReplayOptions {
  /** The statistics option the parts ran with (default: what the parts recorded, else the evaluator's default). */
  readonly statistics?: EvaluateOptions['statistics']
  /** Where the evaluator's warnings go (default: dropped; unlabelled rows are counted in the manifest). */
  readonly onWarning?: (message: string) => void
}

/** Evaluate the reassembled run `run` exactly as its parts were configured. */
export function evaluateReassembled(run: Reassembled, options: ReplayOptions = {}): Promise<EvalResult> {
  return evaluateWithScorer(run.decisions, run.score, {
    debias: run.settings.debias,
    seed: run.settings.seed,
    epochs: run.settings.epochs,
    reducer: run.settings.reducer as never,
    average: run.settings.average,
    storePrompts: run.settings.storePrompts,
    scorerDescription: run.scorer,
    manifest: run.manifest,
    ...(options.statistics !== undefined ? { statistics: options.statistics } : run.settings.statistics === false ? { statistics: false } : {}),
    onWarning:
      options.onWarning ??
      (() => {
        // Unlabelled rows are counted in the manifest and shown in the report.
      }),
  })
}
