/**
 * Evaluating a call's prompts on the context's sequences. Requests are grouped by their
 * shared token prefix (a decision's orderings share its evidence), each group runs on one
 * sequence: the sequence keeps whatever leading tokens it already holds that the group's
 * prefix starts with, evaluates the rest of the prefix once, then for each request erases
 * back to the prefix and evaluates only that request's own tokens, reading the softmax over
 * its letters at its last position (readout.ts). The sequences take groups from one queue, and
 * node-llama-cpp evaluates what they submit together in one batch.
 */
import { commonPrefix, groupByPrefix } from '../onnx/runtime/prefix.ts'
import { letterReadout, lettersFrom, type LetterReadout } from './readout.ts'
import type { LlamaSequence } from './startup.ts'

/** What a call evaluates. */
export interface EvaluationInput {
  /** Token ids per request (only runnable requests are listed in `rows`). */
  readonly ids: readonly Int32Array[]
  /** Letter ids per request. */
  readonly letters: readonly Int32Array[]
  /** Requests to evaluate. */
  readonly rows: readonly number[]
}

/** Letter probabilities by request, and the tokens llama.cpp evaluated. */
export interface Evaluated {
  readonly probabilities: Map<number, number[]>
  readonly tokensEvaluated: number
}

/**
 * Evaluate `rows` on `sequences`. `cancel.cancelled` stops taking new groups (a group
 * in flight finishes). Probabilities are the softmax over each request's letters.
 */
export async function evaluateRows(sequences: readonly LlamaSequence[], input: EvaluationInput, cancel: { cancelled: boolean }): Promise<Evaluated> {
  const { ids, letters, rows } = input
  // Groups over the runnable rows; a lone request is a group with no shared prefix.
  const plan = groupByPrefix(rows.map((r) => ids[r]!), 2)
  const groups = [...plan.groups.map((g) => ({ rows: g.rows.map((i) => rows[i]!), prefixLength: g.prefixLength })), ...plan.singles.map((i) => ({ rows: [rows[i]!], prefixLength: ids[rows[i]!]!.length - 1 }))]
  const probabilities = new Map<number, number[]>()
  let tokensEvaluated = 0
  let next = 0
  const worker = async (sequence: LlamaSequence): Promise<void> => {
    while (next < groups.length && !cancel.cancelled) {
      const group = groups[next++]!
      const prefix = ids[group.rows[0]!]!.subarray(0, group.prefixLength)
      // Keep what the sequence holds of this prefix (the same few-shot header, the same evidence): erase the rest.
      const held = sequence.contextTokens
      const keep = commonPrefix(held as unknown as ArrayLike<number>, prefix)
      if (keep < sequence.nextTokenIndex) await sequence.eraseContextTokenRanges([{ start: keep, end: sequence.nextTokenIndex }])
      if (keep < prefix.length) {
        await sequence.controlledEvaluate(Array.from(prefix.subarray(keep)) as never[])
        tokensEvaluated += prefix.length - keep
      }
      for (const r of group.rows) {
        if (sequence.nextTokenIndex > prefix.length) await sequence.eraseContextTokenRanges([{ start: prefix.length, end: sequence.nextTokenIndex }])
        const suffix = Array.from(ids[r]!.subarray(prefix.length))
        const last = suffix.pop()!
        probabilities.set(r, lettersFrom(await evaluateLast(sequence, suffix, last, letterReadout(letters[r]!)), letters[r]!))
        tokensEvaluated += suffix.length + 1
      }
    }
  }
  await Promise.all(sequences.map(worker))
  return { probabilities, tokensEvaluated }
}

/** Evaluate `tokens` then `last`, asking for `readout` at `last`: the letters' raw logits there. */
async function evaluateLast(sequence: LlamaSequence, tokens: readonly number[], last: number, readout: LetterReadout): Promise<ReadonlyMap<number, number> | undefined> {
  const result = await sequence.controlledEvaluate([...tokens, [last, { generateNext: readout }]] as never[])
  return (result.at(-1) as { next?: { logits?: Map<number, number> } } | undefined)?.next?.logits
}

/** The fewest tokens that give every request's last-position probabilities: each distinct prefix once (the nodes of their trie). */
export function minimumTokens(ids: readonly Int32Array[], rows: readonly number[]): number {
  const sorted = rows.map((r) => ids[r]!).sort(compareIds)
  let total = 0
  sorted.forEach((row, i) => (total += row.length - (i === 0 ? 0 : commonPrefix(sorted[i - 1]!, row))))
  return total
}

function compareIds(a: Int32Array, b: Int32Array): number {
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!
  return a.length - b.length
}
