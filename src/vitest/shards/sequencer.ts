/**
 * Decision-level sharding, main-process side (docs/scaling-out.md#vitest-shards-that-split-decisions):
 * Vitest's `--shard i/n` splits test files, so a file whose suites split their decisions
 * must run in every shard. The plugin wraps the configured sequencer: files that declare
 * `shard: 'decisions'` go to every shard, the other files are split as Vitest would.
 */
import { readFileSync } from 'node:fs'
import type { TestSequencerConstructor, TestSpecification } from 'vitest/node'

/**
 * The rule that decides, from the source text alone, whether a test file holds a suite that
 * splits its decisions: it contains `shard: 'decisions'` (any quote, any spacing). The
 * sequencer uses it to keep such files in every shard, and `describeDecisions` checks its
 * own file with it, so a suite whose option is computed (and not detected) fails clearly.
 */
export function declaresDecisionShards(source: string): boolean {
  return /\bshard\s*:\s*(['"`])decisions\1/.test(source)
}

/** Whether the file at `path` declares decision shards; unreadable files do not. */
export function fileDeclaresDecisionShards(path: string): boolean {
  try {
    return declaresDecisionShards(readFileSync(path, 'utf8'))
  } catch {
    return false
  }
}

/** {@link TestSequencer} with methods (its members are declared as properties). */
interface SequencerMethods {
  shard(files: TestSpecification[]): Promise<TestSpecification[]> | TestSpecification[]
  sort(files: TestSpecification[]): Promise<TestSpecification[]> | TestSpecification[]
}

const WRAPPED = Symbol.for('vitest-sceptic.decision-shards')

/**
 * `Base` (Vitest's `BaseSequencer`, `RandomSequencer` or the user's own) with a `shard`
 * that keeps decision-shard files in every shard and lets `Base` split the rest.
 * Wrapping twice returns the first wrapper.
 */
export function withDecisionShards(Base: TestSequencerConstructor): TestSequencerConstructor {
  if ((Base as unknown as Record<symbol, unknown>)[WRAPPED]) return Base
  const Parent = Base as unknown as new (...args: unknown[]) => SequencerMethods
  class DecisionShardSequencer extends Parent {
    static readonly [WRAPPED] = true
    override async shard(files: TestSpecification[]): Promise<TestSpecification[]> {
      const everywhere = files.filter((spec) => fileDeclaresDecisionShards(spec.moduleId))
      const rest = files.filter((spec) => !everywhere.includes(spec))
      const mine = rest.length > 0 ? await super.shard(rest) : []
      return [...mine, ...everywhere]
    }
  }
  return DecisionShardSequencer as unknown as TestSequencerConstructor
}
