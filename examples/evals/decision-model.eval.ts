// An AI SDK 7 decision model (`experimental_decide`) audited like any other scorer. The app's own
// choice question becomes the criterion (criterionFromDecideQuestion), so the eval asks what
// production asks. The model here is Experimental_DecisionMockModelV4 from `ai/test`, built to
// answer by position: it gives the option shown first 0.6, whatever the message says. No network.
// With a real provider, pass `openai.decisionModel('gpt-6-luna')` instead (docs/decision-models.md).
import { Experimental_DecisionMockModelV4 } from 'ai/test'
import { expect } from 'vitest'
import { describeDecisions } from 'vitest-sceptic'
import { criterionFromDecideQuestion, decisionModelScorer } from 'vitest-sceptic/ai'

// The question as the application passes it to experimental_decide.
const department = {
  type: 'choice',
  instructions: 'Which team should handle this message?',
  criteria: {
    billing: 'Payments, invoices and refunds',
    support: 'Login problems, crashes and bugs',
    shipping: 'Parcels, delivery and returns',
  },
} as const

const criterion = criterionFromDecideQuestion('department', department)
const messages: [string, keyof typeof department.criteria][] = [
  ['I was charged twice for my March invoice.', 'billing'],
  ['The app crashes when I open settings.', 'support'],
  ['My parcel has not arrived after two weeks.', 'shipping'],
  ['Please refund the duplicate payment.', 'billing'],
  ['I cannot log in since the last update.', 'support'],
  ['The courier left my package at the wrong address.', 'shipping'],
]
const data = messages.map(([state, answer], i) => ({ id: `m-${i + 1}`, state, criterion, answer_id: answer }))

const firstShown = new Experimental_DecisionMockModelV4({
  provider: 'example.decision',
  modelId: 'first-shown',
  doDecide: async ({ questions }) => ({
    answers: Object.fromEntries(
      Object.entries(questions).map(([name, question]) => {
        const keys = Object.keys((question as { criteria: Record<string, unknown> }).criteria)
        const probabilities = Object.fromEntries(keys.map((key, slot) => [key, slot === 0 ? 0.6 : 0.4 / (keys.length - 1)]))
        return [name, { type: 'choice' as const, choice: keys[0]!, probabilities }]
      }),
    ),
    usage: { inputTokens: 30, outputTokens: 2 },
    warnings: [],
  }),
})

const audit = { data, scorer: decisionModelScorer(firstShown), baseline: false } as const

// Passes: the audit asserts that the sceptic's checks catch a decision model answering by position.
describeDecisions('decision model answering by position is caught (audit)', audit, (result) => {
  expect(result).not.toHaveOrderConsistency({ atLeast: 0.5 })
  expect(result.letterDistribution.A).toBe(1)
  // The manifest counts the model calls this run made (cache hits make none) and their tokens.
  const decide = result.manifest.decide as { calls: number; questions: number; outputTokens: number }
  expect(decide.questions).toBe(decide.calls)
  expect(decide.outputTokens).toBe(2 * decide.calls)
})

// Fails on purpose: skipped unless SCEPTIC_DEMO_FAILURE=1, so `npm run eval` stays green.
describeDecisions('decision model held to thresholds (demo failure)', {
  ...audit,
  thresholds: { orderConsistency: 0.8 },
  skip: process.env.SCEPTIC_DEMO_FAILURE !== '1',
})
