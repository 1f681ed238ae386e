// Property: on every face in the registry (test/helpers/option-faces.ts), through its real entry
// point, any key outside its schema — random strings, near-misses of valid keys, keys differing
// by case, `__proto__`, `constructor`, very long keys — at the top level or in any nested
// options object (cache, stopEarly, statistics, models.<name>, thresholds.<name>, reporter) is a
// ConfigError naming it; and any set of known keys is never refused.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import type { z } from 'zod'
import { describe, expect, it } from 'vitest'
import { ConfigError } from '../../src/core/support/errors.ts'
import { escapeControl } from '../../src/core/support/escape.ts'
import { nearestName, refuseUnknownOptions, shownKey } from '../../src/core/support/options.ts'
import { sourceFiles } from '../structure/source-files.ts'
import { OPTION_FACES } from '../helpers/option-faces.ts'

type Def = { type: string } & Record<string, unknown>
const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def
const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'readonly', 'nonoptional', 'catch'])

/** Where an options object sits in a face's options, and the keys it knows (written apart from src: the walk of the schema's definition). */
interface Site {
  readonly path: readonly string[]
  readonly known: readonly string[]
}

function sites(schema: z.ZodType, path: readonly string[] = []): Site[] {
  const def = defOf(schema)
  if (WRAPPERS.has(def.type)) return sites(def.innerType as z.ZodType, path)
  if (def.type === 'pipe') return sites(def.in as z.ZodType, path)
  if (def.type === 'union') {
    const all = (def.options as z.ZodType[]).flatMap((option) => sites(option, path))
    const here = all.filter((site) => site.path.length === path.length)
    const deeper = all.filter((site) => site.path.length > path.length)
    return [...(here.length > 0 ? [{ path, known: [...new Set(here.flatMap((site) => site.known))] }] : []), ...deeper]
  }
  // A record's keys are the user's (model, threshold, header names): its values may hold options.
  if (def.type === 'record') return sites(def.valueType as z.ZodType, [...path, 'my-entry'])
  if (def.type !== 'object') return []
  const shape = def.shape as Record<string, z.ZodType>
  const open = def.catchall !== undefined && defOf(def.catchall as z.ZodType).type !== 'never'
  return [...(open ? [] : [{ path, known: Object.keys(shape) }]), ...Object.entries(shape).flatMap(([key, field]) => sites(field, [...path, key]))]
}

/** `{ [path…]: { [key]: value } }`, the key an own property even when it is `__proto__`. */
function optionsWith(path: readonly string[], key: string, value: unknown): Record<string, unknown> {
  const leaf: Record<string, unknown> = {}
  Object.defineProperty(leaf, key, { value, enumerable: true, configurable: true, writable: true })
  return path.reduceRight<Record<string, unknown>>((inner, step) => ({ [step]: inner }), leaf)
}

const mutate = (known: readonly string[]) =>
  fc.tuple(fc.constantFrom(...known), fc.nat(), fc.constantFrom('delete', 'insert', 'swap', 'case', 'upper', 'plural'), fc.string({ minLength: 1, maxLength: 1 })).map(([name, at, how, char]) => {
    const i = name.length === 0 ? 0 : at % name.length
    if (how === 'delete') return name.slice(0, i) + name.slice(i + 1)
    if (how === 'insert') return name.slice(0, i) + char + name.slice(i)
    if (how === 'swap') return name.slice(0, i) + (name[i + 1] ?? '') + (name[i] ?? '') + name.slice(i + 2)
    if (how === 'case') return name.slice(0, i) + (name[i] === name[i]?.toUpperCase() ? name[i]!.toLowerCase() : name[i]!.toUpperCase()) + name.slice(i + 1)
    if (how === 'upper') return name.toUpperCase()
    return `${name}s`
  })

const SPECIAL = ['__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty', '__defineGetter__', '']

function outsideKey(site: Site, renamed: readonly string[]) {
  return fc
    .oneof(fc.string({ maxLength: 24 }), mutate(site.known), fc.constantFrom(...SPECIAL), fc.string({ unit: 'binary', minLength: 1, maxLength: 12 }), fc.string({ minLength: 90, maxLength: 300 }))
    .filter((key) => !site.known.includes(key) && !(site.path.length === 0 && renamed.includes(key)))
}

const anyValue = fc.oneof(fc.integer(), fc.string({ maxLength: 8 }), fc.boolean(), fc.constant(undefined), fc.constant(null), fc.object({ maxDepth: 1 }))

async function outcome(call: () => unknown): Promise<unknown> {
  try {
    await call()
    return undefined
  } catch (error) {
    return error
  }
}

describe('every face refuses every key outside its schema, by name', () => {
  for (const { face, schema, call, renamed = [], skip } of OPTION_FACES) {
    const all = sites(schema)
    it.skipIf(skip !== undefined)(`${face}: ${all.map((site) => site.path.join('.') || '(top)').join(', ')}`, async () => {
      expect(all.length).toBeGreaterThan(0)
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...all).chain((site) => fc.tuple(fc.constant(site), outsideKey(site, renamed), anyValue)),
          async ([site, key, value]) => {
            const error = await outcome(() => call(optionsWith(site.path, key, value)))
            expect(error).toBeInstanceOf(ConfigError)
            const message = (error as Error).message
            expect(message).toContain(`unknown option \`${escapeControl(shownKey([...site.path, key].join('.')))}\` in ${face} options`)
            // The suggestion, when there is one, is a valid key of that object.
            const near = /did you mean `([^`]*)`\?/.exec(message)?.[1]
            if (near !== undefined) expect(site.known.map((name) => [...site.path, name].join('.'))).toContain(near)
          },
        ),
        { numRuns: 60 },
      )
    })
  }
})

describe('known keys are never refused', () => {
  for (const { face, schema } of OPTION_FACES) {
    it(face, () => {
      const all = sites(schema)
      fc.assert(
        fc.property(
          fc.constantFrom(...all).chain((site) => fc.tuple(fc.constant(site), fc.subarray([...site.known]), fc.oneof(fc.integer(), fc.string(), fc.boolean(), fc.constant(undefined)))),
          ([site, keys, value]) => {
            const leaf = Object.fromEntries(keys.map((key) => [key, value]))
            const options = site.path.reduceRight<Record<string, unknown>>((inner, step) => ({ [step]: inner }), leaf)
            expect(() => refuseUnknownOptions(schema, options, face)).not.toThrow()
          },
        ),
        { numRuns: 60 },
      )
    })
  }
})

describe('the nearest name', () => {
  it('a one-edit slip of a known name is suggested; a name with no close known one gets none', () => {
    const known = ['thresholds', 'baseline', 'detectableDrop', 'baseURL', 'maxRetries', 'dir', 'mode']
    fc.assert(
      fc.property(mutate(known), (slip) => {
        const near = nearestName(slip, known)
        if (slip.length >= 4) expect(near).toBeDefined()
      }),
    )
    expect(nearestName('baseUrl', known)).toBe('baseURL')
    expect(nearestName('zzzz', known)).toBeUndefined()
    expect(nearestName('ab', ['api'])).toBeUndefined()
    expect(nearestName('x'.repeat(100_000), known)).toBeUndefined()
  })
})

describe('the registry', () => {
  it('holds every schema src/ checks options with', () => {
    const src = join(import.meta.dirname, '../../src')
    const checked = new Set(sourceFiles(src).flatMap((file) => [...readFileSync(file, 'utf8').matchAll(/refuseUnknownOptions\(\s*(\w+)/g)].map((match) => match[1]!)))
    checked.delete('schema') // the definition itself
    expect(checked.size).toBeGreaterThanOrEqual(10)
    const registered = new Set(OPTION_FACES.map((entry) => entry.name))
    expect([...checked].filter((name) => !registered.has(name))).toEqual([])
  })
})
