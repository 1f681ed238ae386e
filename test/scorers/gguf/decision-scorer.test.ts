// ggufDecisionScorer: node-llama-cpp's own decide() on the project's trained models (written here
// from the committed weights, as make-trained-models writes them), audited as the AI SDK's decision
// models are: strict options, the order shown verified by permutation, probabilities checked, a tie
// named (a model whose logits are all equal), what stands for a refusal (a prompt past the context),
// and cache keys never shared with the letter readout of the same file.
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { buildGguf, trainedDecoder, trainedTokenizer } from '../../../scripts/onnx-fixture/index.ts'
import { cachedScorer } from '../../../src/cache/cached-scorer.ts'
import { CacheStore } from '../../../src/cache/store.ts'
import { parseDecisions } from '../../../src/core/decisions/load.ts'
import type { Decision } from '../../../src/core/decisions/schema.ts'
import { evaluateWithScorer } from '../../../src/core/evaluate/index.ts'
import { buildPrompt } from '../../../src/core/requests/prompt.ts'
import type { ScoreRequest, ScoredOutcome } from '../../../src/core/scorer/contract.ts'
import { ConfigError } from '../../../src/core/support/errors.ts'
import { ggufDecisionScorer, ggufScorer, TIED_CHOICE, type GgufDecisionScorer, type GgufScorer } from '../../../src/scorers/gguf/index.ts'
import { SMALL, temp, writeTwins } from './helpers.ts'

const root = fileURLToPath(new URL('../../../', import.meta.url))
const WEIGHTS = join(root, 'examples/models/weights')
const HELD_OUT = join(root, 'examples/data/triage-heldout.jsonl')
const dir = temp.make()
const READER = join(dir, 'reader.gguf')
writeFileSync(READER, buildGguf(trainedDecoder(WEIGHTS, 'reader'), trainedTokenizer(WEIGHTS), { type: 'F32' }))
const heldOut: Decision[] = parseDecisions(readFileSync(HELD_OUT, 'utf8'), HELD_OUT)

const open: (GgufDecisionScorer | GgufScorer)[] = []
function decide(options: Omit<Parameters<typeof ggufDecisionScorer>[0], 'model'> & { model?: string } = {}): GgufDecisionScorer {
  const scorer = ggufDecisionScorer({ model: READER, threads: 1, ...options })
  open.push(scorer)
  return scorer
}
afterAll(async () => {
  await Promise.all(open.map((s) => s.close()))
  temp.removeAll()
})

function request(ids: readonly string[], state = 'My card was charged twice for one order.'): ScoreRequest {
  const criterion = { key: 'queue', question: 'Which queue should handle this ticket?', options: ids.map((id) => ({ id, text: `Queue ${id}` })) }
  return { state, criterion, prompt: buildPrompt(state, criterion) }
}

describe('options', () => {
  it('refuses a misspelt key, and the letter readout options decide() has no use for, naming them', () => {
    expect(() => ggufDecisionScorer({ model: READER, thread: 1 } as never)).toThrow(/unknown option `thread`.*did you mean `threads`/)
    expect(() => ggufDecisionScorer({ model: READER, kvCacheType: 'F16' } as never)).toThrow(/unknown option `kvCacheType`/)
    expect(() => ggufDecisionScorer({ model: READER, template: () => '' } as never)).toThrow(/unknown option `template`/)
    expect(() => ggufDecisionScorer({ model: READER, chatWrapper: 'chat' as never })).toThrow(/`chatWrapper`/)
    expect(() => ggufDecisionScorer({ model: READER, threads: 0 })).toThrow(ConfigError)
    expect(() => ggufDecisionScorer({} as never)).toThrow(/`model` \(the path of a \.gguf file\) is required/)
  })

  it('is refused before loading anything when the file is not GGUF', () => {
    const text = join(dir, 'not.gguf')
    writeFileSync(text, 'hello')
    expect(() => ggufDecisionScorer({ model: text })).toThrow(ConfigError)
  })
})

describe('decide() on the trained reader', () => {
  it('the order shown is the order requested, verified by permutation: integer-like ids too', async () => {
    // The reader never saw digit labels: decide() answers "0" (the first option shown) on every
    // ordering of the held-out set (by at least 0.013 in probability), so each ordering's pick names
    // the option shown first. Were the order lost (an object lists "0", "2", "10" first and
    // ascending), every ordering would pick the same id.
    const decisions: Decision[] = heldOut.slice(0, 3).map((d) => ({ ...d, criterion: { ...d.criterion, options: d.criterion.options.slice(0, 3).map((o, i) => ({ ...o, id: ['10', '2', '0'][i]! })) }, answer_id: '10' }))
    const result = await evaluateWithScorer(decisions, decide(), { debias: 'permutation', statistics: false })
    for (const record of result.records) {
      expect(record.letters).toEqual(['A', 'A', 'A', 'A', 'A', 'A'])
      expect([...record.picks].sort()).toEqual(['0', '0', '10', '10', '2', '2'])
    }
    expect(result.orderConsistency).toBe(0)
    expect(result.letterDistribution.A).toBe(1)
  })

  it("returns decide()'s probabilities by slot, each a distribution, its choice the most probable", async () => {
    const scorer = decide()
    const outcomes = await scorer([request(['billing', 'tech', 'account', 'shipping']), request(['a', 'b'])])
    for (const [i, outcome] of outcomes.entries()) {
      expect(Array.isArray(outcome)).toBe(true)
      const p = outcome as number[]
      expect(p).toHaveLength(i === 0 ? 4 : 2)
      expect(p.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12)
      for (const v of p) expect(v).toBeGreaterThan(0)
    }
    expect(scorer.stats.requests).toBe(2)
    expect(scorer.stats.inputTokens).toBeGreaterThan(0)
  })

  it("'plain' asks without chat turns: other probabilities than decide()'s default chat wrapper, and its own cache key", async () => {
    const r = request(['billing', 'tech', 'account'])
    const [auto] = await decide()([r])
    const [plain] = await decide({ chatWrapper: 'plain' })([r])
    expect(Math.max(...(auto as number[]).map((p, i) => Math.abs(p - (plain as number[])[i]!)))).toBeGreaterThan(1e-3)
    expect(decide().cacheIdentity).not.toEqual(decide({ chatWrapper: 'plain' }).cacheIdentity)
    expect(decide().description).toBe(`decide gguf ${READER} (node-llama-cpp's chat wrapper, 1 thread)`)
  })

  it('a prompt past contextLength is a too_long failure, never an answer, and the rest is scored', async () => {
    // decide() has no refusal of its own (it reads only the option digits' logits); what it declines is a prompt that does not fit.
    const scorer = decide({ contextLength: 96 })
    const [long, short] = await scorer([request(['a', 'b'], 'Please check my invoice. '.repeat(40)), request(['a', 'b'])])
    expect(long).toMatchObject({ failure: 'too_long' })
    expect(Array.isArray(short)).toBe(true)
  })
})

describe('a tie is named', () => {
  it('a model whose logits are all equal ties every ordering: the pick is decide()\'s choice (the first shown), flagged tied_choice', async () => {
    // Final norm gain 0: every hidden state is zero, so every logit is 0 and every option ties exactly.
    const { gguf } = writeTwins({ ...SMALL, headScale: 0 })
    const scorer = decide({ model: gguf.F32! })
    const [outcome] = await scorer([request(['a', 'b', 'c'])])
    expect(outcome).toEqual({ probabilities: [1 / 3, 1 / 3, 1 / 3], pick: 0, flags: [TIED_CHOICE] } satisfies ScoredOutcome)
    // As an application acting on decide() would: always the first shown, so never order-consistent.
    const result = await evaluateWithScorer(heldOut.slice(0, 4), scorer, { debias: 'cyclic', statistics: false })
    expect(result.letterDistribution.A).toBe(1)
    expect(result.orderConsistency).toBe(0)
    // Flags are counted per decision: all 4 are named.
    expect(result.manifest.flagged).toEqual({ [TIED_CHOICE]: 4 })
  })
})

describe('cache identity', () => {
  it("decide() scores are never served for the letter readout of the same file, nor the letters' for decide()", async () => {
    const store = new CacheStore(temp.make())
    const decisions = heldOut.slice(0, 3)
    const letters = ggufScorer({ model: READER, threads: 1 })
    open.push(letters)
    const cold = await evaluateWithScorer(decisions, cachedScorer(letters, { identity: letters.cacheIdentity!, store }), { debias: 'cyclic', statistics: false })
    const scorer = decide()
    const decided = await evaluateWithScorer(decisions, cachedScorer(scorer, { identity: scorer.cacheIdentity, store }), { debias: 'cyclic', statistics: false })
    // Every request went to decide(): none was answered from the letters' entries.
    expect(scorer.stats.requests).toBe(12)
    expect(decided.records.map((r) => r.letters)).not.toEqual(cold.records.map((r) => r.letters))
    // Warm: each readout gets its own scores back.
    const again = decide()
    const warm = await evaluateWithScorer(decisions, cachedScorer(again, { identity: again.cacheIdentity, store }), { debias: 'cyclic', statistics: false })
    expect(again.stats.requests).toBe(0)
    expect(warm.records).toEqual(decided.records)
    const lettersAgain = await evaluateWithScorer(decisions, cachedScorer(letters, { identity: letters.cacheIdentity!, store }), { debias: 'cyclic', statistics: false })
    expect(lettersAgain.records).toEqual(cold.records)
    expect(letters.cacheIdentity!.settings).toMatchObject({ readout: 'letter-logits' })
    expect(scorer.cacheIdentity.settings).toMatchObject({ readout: 'decide', chatWrapper: 'auto', kvCacheType: 'F32', threads: 1 })
    await store.close()
  })
})
