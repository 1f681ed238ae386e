/** The ONNX scorer's token counts: what a call's plan runs against what its prompts hold. Pure. */
import type { OnnxScorerStats } from './options.ts'
import type { PrefixPlan } from './runtime/prefix.ts'

/** Add a call's counts to `stats`: its `runnable` requests' prompt tokens, and the tokens `shared` runs (each prefix once). */
export function addCallStats(stats: OnnxScorerStats, ids: readonly Int32Array[], runnable: readonly number[], shared: PrefixPlan): void {
  stats.requests += runnable.length
  for (const r of runnable) stats.promptTokens += ids[r]!.length
  for (const r of shared.singles) stats.tokensRun += ids[r]!.length
  for (const group of shared.groups) {
    stats.sharedGroups++
    stats.sharedRequests += group.rows.length
    stats.tokensRun += group.prefixLength + group.rows.reduce((sum, r) => sum + ids[r]!.length - group.prefixLength, 0)
  }
}
