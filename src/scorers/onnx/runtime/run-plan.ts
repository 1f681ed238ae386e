/**
 * From a call's token ids to the runs the workers execute: shared-prefix groups
 * (prefix.ts), split so no worker idles on a small call, and batches of full prompts
 * (batching.ts), each packed as a run message. Pure.
 */
import { planBatches } from './batching.ts'
import type { OnnxScorerSettings } from '../options.ts'
import { concat } from './pack.ts'
import { groupByPrefix, type PrefixGroup, type PrefixPlan } from './prefix.ts'
import type { RunMessage } from './protocol.ts'
import { largest } from '../../../core/support/spreadless.ts'

/** One run: the request indices it scores, and its message without type and id. */
export interface PlannedRun {
  readonly rows: readonly number[]
  readonly payload: Omit<RunMessage, 'type' | 'id'>
}

/** What the model can do, for {@link planRuns}. */
export interface ModelAbilities {
  /** The model continues from a key/value cache (past inputs, present outputs, attention_mask). */
  readonly prefixCache: boolean
  /** The model takes `attention_mask`, so rows of different lengths can share a run. */
  readonly attentionMask: boolean
  /** Columns of the logits per position (bounds a run's logits tensor). */
  readonly logitsColumns: number
}

/** The runs of a call, and the prefix plan they came from (for the token counts). */
export interface RunPlan {
  readonly runs: readonly PlannedRun[]
  /** Groups and singles, as request indices. */
  readonly shared: PrefixPlan
}

/**
 * Plan the runs of the `runnable` requests (indices into `ids` and `letters`, in call
 * order). Prefix groups first (when the settings and the model allow), then batches of
 * the remaining full prompts.
 */
export function planRuns(
  ids: readonly Int32Array[],
  letters: readonly Int32Array[],
  runnable: readonly number[],
  settings: Pick<OnnxScorerSettings, 'prefixSharing' | 'workers' | 'batchSize' | 'maxLogitsBytes'>,
  model: ModelAbilities,
): RunPlan {
  const runIds = runnable.map((r) => ids[r]!)
  const local = settings.prefixSharing !== 'off' && model.prefixCache ? splitForWorkers(groupByPrefix(runIds), settings.workers) : { groups: [], singles: runIds.map((_, i) => i) }
  // Back from positions in `runnable` to request indices.
  const shared: PrefixPlan = {
    groups: local.groups.map((group) => ({ ...group, rows: group.rows.map((i) => runnable[i]!) })),
    singles: local.singles.map((i) => runnable[i]!),
  }
  const letterPayload = (rows: readonly number[]) => ({
    letters: concat(rows.map((r) => letters[r]!)),
    letterCounts: Int32Array.from(rows, (r) => letters[r]!.length),
  })
  // Suffix runs obey the same logits cap as full batches: rows × longest suffix × vocab × 4 bytes.
  const suffixRows = (lengths: number[]): number =>
    Math.max(1, Math.min(settings.batchSize, Math.floor(settings.maxLogitsBytes / (largest(lengths) * model.logitsColumns * 4))))
  const runs: PlannedRun[] = shared.groups.map((group) => {
    const P = group.prefixLength
    return {
      rows: group.rows,
      payload: {
        prefix: ids[group.rows[0]!]!.slice(0, P),
        ids: concat(group.rows.map((r) => ids[r]!.subarray(P))),
        lengths: Int32Array.from(group.rows, (r) => ids[r]!.length - P),
        suffixRows: settings.prefixSharing === 'sequential' ? 1 : suffixRows(group.rows.map((r) => ids[r]!.length - P)),
        ...letterPayload(group.rows),
      },
    }
  })
  const singles = shared.singles
  const batches = planBatches(
    singles.map((r) => ids[r]!.length),
    { batchSize: settings.batchSize, workers: settings.workers, vocab: model.logitsColumns, maxLogitsBytes: settings.maxLogitsBytes, equalLengthsOnly: !model.attentionMask },
  ).map((batch) => batch.map((i) => singles[i]!))
  for (const rows of batches)
    runs.push({ rows, payload: { ids: concat(rows.map((r) => ids[r]!)), lengths: Int32Array.from(rows, (r) => ids[r]!.length), ...letterPayload(rows) } })
  return { runs, shared }
}

/**
 * A small call (fewer groups than workers, e.g. one decision) would leave workers
 * idle: split its groups so each worker gets a part. Each part runs the prefix again,
 * which costs total work but shortens the call; calls with enough groups are untouched.
 */
export function splitForWorkers(plan: PrefixPlan, workers: number): PrefixPlan {
  if (plan.groups.length === 0 || plan.groups.length + plan.singles.length >= workers) return plan
  const perGroup = Math.ceil(workers / plan.groups.length)
  const groups = plan.groups.flatMap((group) => {
    const parts = Math.min(perGroup, group.rows.length)
    const size = Math.ceil(group.rows.length / parts)
    const out: PrefixGroup[] = []
    for (let i = 0; i < group.rows.length; i += size) out.push({ rows: group.rows.slice(i, i + size), prefixLength: group.prefixLength })
    return out
  })
  return { groups, singles: plan.singles }
}
