/**
 * Decision-level sharding, test-worker side (docs/scaling-out.md#vitest-shards-that-split-decisions):
 * under `vitest --shard i/n` a suite with `shard: 'decisions'` scores only its part of the
 * data (the split of `sceptic evaluate --shard`), defers its thresholds to the merged run,
 * and leaves its part (decisions and every scorer answer, the `sceptic merge` part format)
 * in its suite meta, which blob reports carry to `vitest --merge-reports`.
 */
import { ConfigError } from '../../core/support/errors.ts'
import type { ShardSpec } from '../../core/shards/spec.ts'
import type { Threshold } from '../../core/thresholds/verdict.ts'
import { test } from 'vitest'
import { fileDeclaresDecisionShards } from './sequencer.ts'
import { writeMeta, type DeferredCheck, type ScepticTestMeta } from '../../suite/meta.ts'

/** How a deferred test is named in a shard: `balancedAccuracy ≥ 0.8 — deferred to merge (shard 1/4)`. */
export function deferredTestName(name: string, spec: ShardSpec): string {
  return `${name} — deferred to merge (shard ${spec.index}/${spec.count})`
}

/** How a deferred test is named once `--merge-reports` decided it: `balancedAccuracy ≥ 0.8 (merged from 4 shards)`. */
export function mergedTestName(name: string, count: number): string {
  return `${name} (merged from ${count} shard${count === 1 ? '' : 's'})`
}

/** Why a deferred test is skipped in a shard (its skip note). */
export function deferredNote(spec: ShardSpec): string {
  return `shard ${spec.index}/${spec.count} holds part of the decisions: checked once on the whole by vitest --merge-reports`
}

/**
 * A suite's file must declare `shard: 'decisions'` literally, or the plugin's sequencer
 * does not run it in every shard and the merge would miss parts: say so before scoring.
 */
export function checkDeclared(suite: string, file: string | undefined): void {
  if (file !== undefined && !fileDeclaresDecisionShards(file))
    throw new ConfigError(
      `describeDecisions("${suite}"): shard: 'decisions' must be written literally in ${file} (the plugin reads the file to run it in every shard)`,
    )
}

/**
 * Declare a test a decision shard cannot decide (a threshold, the baseline gate): named
 * `… — deferred to merge (shard i/n)`, skipped with that reason, and marked in its meta
 * so that `vitest --merge-reports` decides it once on the whole suite.
 */
export function deferredTest(suite: string, name: string, check: string, spec: ShardSpec, extra: Omit<DeferredCheck, 'name'> & { bound?: Threshold } = {}): void {
  const { bound, ...deferred } = extra
  test(deferredTestName(name, spec), ({ task, skip }) => {
    const meta: ScepticTestMeta = { suite, check, deferred: { name, ...deferred }, ...(bound !== undefined ? { bound } : {}) }
    writeMeta(task.meta, meta)
    skip(deferredNote(spec))
  })
}

/** The callback sees the result, which only the merged run has: it fails in a shard, saying why. */
export function callbackUnderShards(suite: string, name: string): void {
  test(name, () => {
    throw new ConfigError(
      `describeDecisions("${suite}"): the callback needs the whole result, and with shard: 'decisions' under vitest --shard each shard has only part of it; ` +
        'use thresholds (checked once by vitest --merge-reports), or run this suite without --shard',
    )
  })
}
