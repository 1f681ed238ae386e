// The Jest face checks a suite's options with the Vitest face's checks, before anything is
// scored: an unknown key is refused by name (a misspelt option must not be ignored).
import { expect, test } from 'vitest'
import { checkOptions } from '../../src/jest/decide.ts'
import { DescribeDecisionsOptionsSchema } from '../../src/suite/options.ts'

const DESCRIBE_DECISIONS_KEYS = Object.keys(DescribeDecisionsOptionsSchema.shape)

const scorer = () => [[1, 0]]
const data = [{ state: 's', criterion: { key: 'k', options: [{ id: 'a', text: 'A' }, { id: 'b', text: 'B' }] }, answer_id: 'a' }]

test('an unknown key is a ConfigError naming it; a renamed one names its new name', () => {
  expect(() => checkOptions('s', { data, scorer, threshold: { balancedAccuracy: 0.8 } } as never)).toThrow(/unknown option `threshold` in describeDecisions\("s"\) options — did you mean `thresholds`\?/)
  expect(() => checkOptions('s', { data, scorer, scorerName: 'x' } as never)).toThrow('the option `scorerName` is now `scorerDescription`')
  expect(() => checkOptions('s', { data, scorer, thresholds: { balancedAccuracy: 0.8 }, baseline: false })).not.toThrow()
})

test('every option of the schema is accepted as a key', () => {
  expect(DESCRIBE_DECISIONS_KEYS).toContain('stopEarly')
  expect(() => checkOptions('s', Object.fromEntries(DESCRIBE_DECISIONS_KEYS.map((key) => [key, undefined])) as never)).toThrow(/`data` must be/)
})
