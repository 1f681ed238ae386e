import { describe, expect, it } from 'vitest'
import { decisionJsonSchema } from '../../../src/core/index.ts'
import { sceptic } from '../../helpers/run.ts'

describe('JSON Schema of a decision line', () => {
  it('is generated from the zod schema: required fields and option bounds', () => {
    const schema = decisionJsonSchema() as any
    expect(schema.$schema).toMatch(/2020-12/)
    expect(schema.required).toEqual(['state', 'criterion'])
    const options = schema.properties.criterion.properties.options
    expect(options).toMatchObject({ type: 'array', minItems: 2, maxItems: 20 })
    expect(options.items.required).toEqual(['id', 'text'])
    expect(schema.properties.answer_id.anyOf ?? schema.properties.answer_id.type).toBeDefined()
  })

  it('`sceptic schema` prints it', async () => {
    const { code, stdout } = await sceptic(['schema'])
    expect(code).toBe(0)
    expect(JSON.parse(stdout)).toEqual(decisionJsonSchema())
  })
})
