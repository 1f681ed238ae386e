import type { Decision, ScoreFn } from '../../src/core/index.ts'
import reader, { PROTO_NAMES as NAMES } from './data/proto-reader.mjs'

/** Keys and ids that break a plain `{}`: one replaces the prototype, the rest are inherited members. */
export const PROTO_NAMES = NAMES as readonly string[]

/** The fixture scorer (see data/proto-reader.mjs): right everywhere but under the `__proto__` criterion. */
export const protoReader = reader as ScoreFn

/**
 * Five decisions per criterion, one criterion per name plus `plain`, every option id
 * one of the names, gold cycling over them. The state says `answer: <id>`; group ids
 * are names too.
 */
export function protoDecisions(): Decision[] {
  const options = PROTO_NAMES.map((id, i) => ({ id, text: `Option ${i}` }))
  return [...PROTO_NAMES, 'plain'].flatMap((key) =>
    PROTO_NAMES.map((gold, g) => ({
      id: `${key}/${gold}`,
      state: `answer: ${gold}`,
      criterion: { key, question: 'Which one?', options },
      answer_id: gold,
      group_id: PROTO_NAMES[g]!,
    })),
  )
}
