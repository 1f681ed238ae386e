/**
 * Starting the GGUF decision scorer: the model loaded as ggufScorer loads it (startup.ts), then
 * node-llama-cpp's decision context in the framing asked for (decision-question.ts).
 */
import { ConfigError, firstLineOf } from '../../core/support/errors.ts'
import type { GgufDecisionScorerSettings } from './decision-options.ts'
import { plainChatWrapper, type ChatWrapperParts } from './decision-question.ts'
import { loadModel, type LlamaModel, type LoadedModel, type NodeLlamaCpp } from './startup.ts'

/** node-llama-cpp's decision context. */
export type LlamaDecisionContext = Awaited<ReturnType<LlamaModel['createDecisionContext']>>
type ChatWrapper = InstanceType<NodeLlamaCpp['ChatWrapper']>

/** A started decision scorer: node-llama-cpp's decision context on the model. */
export interface StartedDecisions extends LoadedModel {
  readonly decisions: LlamaDecisionContext
  /** Tokens a question's whole prompt may take. */
  readonly contextSize: number
}

/**
 * Load the model and make a decision context of one sequence (a call's questions are asked one
 * after another) in the framing asked for. Rejects with a one-line {@link ConfigError} for a file llama.cpp cannot use.
 */
export async function startDecisions(settings: GgufDecisionScorerSettings, onDispose: (dispose: () => Promise<void>) => void): Promise<StartedDecisions> {
  const path = settings.modelPath
  const { model, architecture, trainContext, addBos, llamaCpp, alsoDispose } = await loadModel(settings, onDispose)
  const contextSize = settings.contextLength ?? Math.min(trainContext, 4096)
  let decisions: LlamaDecisionContext
  try {
    decisions = await model.createDecisionContext({
      chatWrapper: settings.chatWrapper === 'plain' ? (plainChatWrapper(llamaCpp as unknown as ChatWrapperParts, addBos) as ChatWrapper) : 'auto',
      contextSize,
      batchSize: Math.min(settings.batchSize, contextSize),
      threads: settings.threads,
      parallelQuestions: 1,
    })
  } catch (error) {
    throw new ConfigError(`${path}: llama.cpp cannot make a decision context of ${contextSize} tokens: ${firstLineOf(error)} (lower contextLength)`)
  }
  alsoDispose(() => decisions.dispose())
  return { model, architecture, trainContext, addBos, decisions, contextSize }
}
