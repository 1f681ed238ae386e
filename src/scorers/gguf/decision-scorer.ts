/**
 * `ggufDecisionScorer`: score decisions with node-llama-cpp's own decision model,
 * `model.createDecisionContext().decide()`, on a GGUF file: a native decision beside the letter
 * readout of the same file (docs/gguf.md, "Native decisions"). One choice question per request,
 * options in the order presented (decision-question.ts); decide()'s `choice` is the pick and its
 * probabilities the vector, both checked. Model loading, the environment and the header checks
 * are ggufScorer's (startup.ts, model-file.ts).
 */
import { cpuKind } from '../../core/support/cpu-kind.ts'
import { isMaximalSlot, maximalSlots } from '../../core/evaluate/argmax.ts'
import { firstLineOf } from '../../core/support/errors.ts'
import { scoreFailure, type CacheIdentity, type ScoreContext, type ScoreOutcome, type ScoreRequest } from '../../core/scorer/contract.ts'
import { parseDecisionOptions, resolveDecisionSettings, type GgufDecisionScorerOptions, type GgufDecisionScorerSettings } from './decision-options.ts'
import { choiceQuestion, QUESTION, slotKey } from './decision-question.ts'
import { assertLlamaInstalled, checkGgufFile, llamaBuild } from './model-file.ts'
import { lifecycle, type GgufLifecycle } from './lifecycle.ts'
import { startDecisions, type StartedDecisions } from './decision-startup.ts'
import { vocabSize } from './startup.ts'

/**
 * The flag on an ordering whose options tied (within a relative 1e-12): decide() still answers one
 * of them (the first shown: it keeps the first maximum), and that choice is the pick, as an
 * application acting on decide() would.
 */
export const TIED_CHOICE = 'tied_choice'

/** Running totals of a decision scorer (live). */
export interface GgufDecisionScorerStats {
  /** Questions asked (one per request). */
  requests: number
  /** Tokens node-llama-cpp evaluated for them (its own count: shared prefixes kept from the question before count once). */
  inputTokens: number
}

/** A GGUF decision scorer: a fallible score function with a lifecycle. */
export interface GgufDecisionScorer extends GgufLifecycle {
  (requests: readonly ScoreRequest[], context?: ScoreContext): Promise<ScoreOutcome[]>
  /** One line for the report and the manifest, e.g. `decide gguf models/reader.gguf (node-llama-cpp's chat wrapper, 1 thread)`. */
  readonly description: string
  readonly settings: GgufDecisionScorerSettings
  readonly stats: GgufDecisionScorerStats
  /** The file's bytes, the llama.cpp build and the settings that change the answers; never shared with the letter readout's. */
  readonly cacheIdentity: CacheIdentity
  /** What the run's manifest records of this scorer. */
  manifestEntries(): { llamaCpp: string; nodeLlamaCpp: string; readout: 'decide'; chatWrapper: string; inputTokens: number }
}

/**
 * Create a GGUF decision scorer. Cheap and synchronous, as `ggufScorer`: it checks the options (a
 * misspelt key is a ConfigError naming it), that the model is a GGUF file and that node-llama-cpp
 * is installed, and loads nothing until the first call or {@link GgufDecisionScorer.ready}.
 */
export function ggufDecisionScorer(options: GgufDecisionScorerOptions): GgufDecisionScorer {
  const checked = parseDecisionOptions(options)
  const settings = resolveDecisionSettings(checked)
  checkGgufFile(settings.modelPath)
  const build = llamaBuild(assertLlamaInstalled())
  const stats: GgufDecisionScorerStats = { requests: 0, inputTokens: 0 }
  const { ready, call, close } = lifecycle<StartedDecisions>((onDispose) => startDecisions(settings, onDispose), 'GGUF decision scorer')

  const ask = async (started: StartedDecisions, request: ScoreRequest, signal: AbortSignal | undefined): Promise<ScoreOutcome> => {
    const question = choiceQuestion(request)
    let answer: unknown
    try {
      const result = await started.decisions.decideWithMeta(request.state, { [QUESTION]: question }, signal ? { signal } : {})
      stats.inputTokens += result.tokenUsage.input
      answer = result.answers[QUESTION]
    } catch (error) {
      signal?.throwIfAborted()
      // decide() says so when the state and question do not fit its context (onOverflow 'throw').
      if (/context size is too small/i.test(firstLineOf(error))) return scoreFailure('too_long', `the prompt does not fit the ${started.contextSize}-token context (contextLength)`)
      return scoreFailure('error', `decide() failed: ${firstLineOf(error).slice(0, 300)}`)
    }
    stats.requests++
    return outcomeOf(answer, request)
  }

  const run = async (started: StartedDecisions, requests: readonly ScoreRequest[], signal: AbortSignal | undefined): Promise<ScoreOutcome[]> => {
    const out: ScoreOutcome[] = []
    for (const request of requests) {
      signal?.throwIfAborted()
      out.push(await ask(started, request, signal))
    }
    return out
  }

  // Calls run one after another: the context has one sequence.
  const score = (requests: readonly ScoreRequest[], context?: ScoreContext): Promise<ScoreOutcome[]> => call((started) => run(started, requests, context?.signal))

  const identity: CacheIdentity = {
    kind: 'gguf',
    label: settings.modelPath,
    files: { model: settings.modelPath },
    // `readout: 'decide'`: never the letter readout's scores (`letter-logits`), nor they these.
    settings: { ...build, readout: 'decide', chatWrapper: settings.chatWrapper, kvCacheType: 'F32', flashAttention: false, threads: settings.threads, cpu: cpuKind().kind, ...(settings.contextLength !== undefined ? { contextLength: settings.contextLength } : {}) },
  }
  const framing = settings.chatWrapper === 'auto' ? "node-llama-cpp's chat wrapper" : 'plain prompt'
  return Object.defineProperties(score as GgufDecisionScorer, {
    ready: { value: () => ready().then(({ architecture, trainContext, model }) => ({ architecture, trainContext, vocab: vocabSize(model) })) },
    close: { value: close },
    description: { value: `decide gguf ${checked.model} (${framing}, ${settings.threads} thread${settings.threads === 1 ? '' : 's'})`, enumerable: true },
    settings: { value: settings, enumerable: true },
    stats: { value: stats, enumerable: true },
    cacheIdentity: { value: identity },
    manifestEntries: { value: () => ({ llamaCpp: build.llamaCpp, nodeLlamaCpp: build.nodeLlamaCpp, readout: 'decide' as const, chatWrapper: settings.chatWrapper, inputTokens: stats.inputTokens }) },
  })
}

/**
 * decide()'s answer as a scorer outcome: its probabilities by slot, checked (every option a
 * finite number ≥ 0, not all zero, the choice a most probable option: else a `parse_failure`).
 * A unique maximum is the choice already; a tie states decide()'s choice as the pick, flagged.
 */
function outcomeOf(answer: unknown, request: ScoreRequest): ScoreOutcome {
  const key = request.criterion.key
  const bad = (why: string) => scoreFailure('parse_failure', `criterion "${key}": ${why}`)
  const a = answer as { type?: unknown; choice?: unknown; probabilities?: unknown } | undefined
  const slots = request.criterion.options.map((_, i) => slotKey(i))
  if (a?.type !== 'choice' || typeof a.choice !== 'string') return bad('decide() gave no choice')
  const pick = slots.indexOf(a.choice)
  if (pick < 0) return bad(`decide() chose "${a.choice.slice(0, 40)}", which is not an option`)
  const given = (a.probabilities ?? {}) as Record<string, unknown>
  const probabilities = slots.map((slot) => (Object.hasOwn(given, slot) ? given[slot] : undefined))
  if (!probabilities.every((p): p is number => typeof p === 'number' && Number.isFinite(p) && p >= 0)) return bad("decide()'s probabilities do not cover every option with a number ≥ 0")
  if (!probabilities.some((p) => p > 0)) return bad("decide()'s probabilities are all zero")
  if (!isMaximalSlot(probabilities, pick)) return bad("decide()'s choice is not its most probable option")
  return maximalSlots(probabilities).length > 1 ? { probabilities, pick, flags: [TIED_CHOICE] } : probabilities
}
