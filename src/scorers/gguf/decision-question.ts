/**
 * A request as node-llama-cpp's `decide()` takes it: the state is the document, and one choice
 * question whose instruction is the criterion's question and whose criteria are the options'
 * texts in the order presented. decide() writes the rest itself: `Question: …`, `Reply the
 * letters of the best answer:` and the options labelled by digits (`0. Billing`), and reads the
 * digits' logits; a prompt of the project's own (letters, `Answer:`) cannot be given to it. What
 * can be chosen is the framing around that block: node-llama-cpp's chat wrapper (`'auto'`) or
 * none (`'plain'`, below).
 */
import type { ScoreRequest } from '../../core/scorer/contract.ts'
import { ScorerError } from '../../core/support/errors.ts'

/** decide() refuses an empty instruction: a criterion without a question is asked this. */
export const DEFAULT_INSTRUCTION = 'Which option fits best?'

/** The question's name in the decide() call. */
export const QUESTION = 'decision'

/** The choice question for a request. */
export interface ChoiceQuestion {
  readonly type: 'choice'
  readonly instruction: string
  readonly criteria: Readonly<Record<string, string>>
}

/**
 * The key of slot `i` (`slot_0`, …). Keys never reach the model (the option texts do), and these are
 * never integer-like, so the criteria keep the order presented (an object lists `"3"` before `"a"`).
 */
export function slotKey(i: number): string {
  return `slot_${i}`
}

/** The question for `request`, its criteria checked to list the slots in the order presented. */
export function choiceQuestion(request: ScoreRequest): ChoiceQuestion {
  const { options, question } = request.criterion
  const criteria = Object.fromEntries(options.map((option, i) => [slotKey(i), option.text]))
  // The order decide() shows is the order of Object.keys: verified, never assumed.
  const shown = Object.keys(criteria)
  if (shown.length !== options.length || shown.some((key, i) => key !== slotKey(i))) throw new ScorerError(`criterion "${request.criterion.key}": the options would reach decide() out of order`)
  return { type: 'choice', instruction: typeof question === 'string' && question.trim() !== '' ? question : DEFAULT_INSTRUCTION, criteria }
}

/** The part of node-llama-cpp a plain chat wrapper is made of. */
export interface ChatWrapperParts {
  readonly ChatWrapper: abstract new () => { generateModelResponseText(response: unknown): unknown }
  readonly LlamaText: (...values: unknown[]) => unknown
  readonly SpecialToken: new (token: 'BOS') => unknown
}

/** What `'plain'` puts after decide()'s question block: the digits are single tokens without a leading space, so the prompt ends in one (the letter readout's in-context rule). */
export const PLAIN_ANSWER = '\nAnswer: '

/**
 * The `'plain'` framing: no chat turns. The document (the state), decide()'s question block, then
 * {@link PLAIN_ANSWER}, with BOS first when the file asks for it (as the letter readout encodes a plain prompt).
 */
export function plainChatWrapper({ ChatWrapper, LlamaText, SpecialToken }: ChatWrapperParts, addBos: boolean): object {
  class PlainChatWrapper extends ChatWrapper {
    readonly wrapperName = 'vitest-sceptic plain'
    generateContextState({ chatHistory }: { chatHistory: readonly { type: string; text?: unknown; response?: unknown }[] }): { contextText: unknown; stopGenerationTriggers: unknown[] } {
      const parts: unknown[] = addBos ? [new SpecialToken('BOS')] : []
      for (const item of chatHistory) {
        if (item.type === 'user') parts.push(item.text)
        else if (item.type === 'model') parts.push(PLAIN_ANSWER, this.generateModelResponseText(item.response))
      }
      return { contextText: LlamaText(parts), stopGenerationTriggers: [] }
    }
  }
  return new PlainChatWrapper()
}
