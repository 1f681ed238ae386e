/**
 * Options cannot be misspelled: every options object a user writes is checked against its
 * zod schema, and a key the schema does not know is a {@link ConfigError} naming it and the
 * nearest known key (`unknown option \`threshold\` in describeDecisions("s") options — did you
 * mean \`thresholds\`?`). Nested option objects are walked too; keys of a record (threshold
 * names, model names, headers) are the user's data, not options, so only their values are.
 */
import type { z } from 'zod'
import { ConfigError } from './errors.ts'

/** Longest key an error quotes in full; a longer one is cut with `…` (a key is the user's data). */
const SHOWN_KEY_CHARS = 64

/** Longest name {@link nearestName} measures against the known names. */
const MAX_NEAR_CHARS = 100

/** A key as an error quotes it: cut past {@link SHOWN_KEY_CHARS} characters. */
export function shownKey(key: string): string {
  return key.length > SHOWN_KEY_CHARS ? `${key.slice(0, SHOWN_KEY_CHARS)}…` : key
}

/**
 * Throw a {@link ConfigError} for the first key of `value` (or of an option object nested in
 * it) that `schema` does not know. `where` names the options as the user wrote them, e.g.
 * `describeDecisions("ranking") options` or `sceptic() options`; `at`, where `value` sits in
 * them (`['models', 'tiny']`). Only keys are checked here: each face checks the values with
 * its own rules after this.
 */
export function refuseUnknownOptions(schema: z.ZodType, value: unknown, where: string, at: readonly string[] = []): void {
  const problem = unknownOption(schema, value, at)
  if (problem) throw new ConfigError(unknownOptionText(problem.path, problem.key, problem.known, where))
}

/**
 * The sentence for an unknown `key` in the options object at `path` whose known keys are
 * `known`: `unknown option \`cache.dirr\`[ in <where>] — did you mean \`cache.dir\`?`, or the
 * known keys when none is near.
 */
export function unknownOptionText(path: readonly string[], key: string, known: readonly string[], where?: string): string {
  const near = nearestName(key, known)
  const at = (name: string) => [...path, name].join('.')
  return (
    `unknown option \`${shownKey(at(key))}\`${where === undefined ? '' : ` in ${where}`}` +
    (near !== undefined ? ` — did you mean \`${at(near)}\`?` : known.length > 0 ? ` (known: ${known.map((name) => `\`${at(name)}\``).join(', ')})` : ' (it takes no option here)')
  )
}

/** The option keys known at `path` of `schema` (through nested objects, unions and records). */
export function optionKeysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let shapes: z.ZodType[] = [schema]
  for (const step of path) {
    shapes = shapes.flatMap((at) => {
      const def = defOf(unwrap(at))
      if (def.type === 'record') return [def.valueType as z.ZodType]
      return objectShapes(at).flatMap((shape) => (Object.hasOwn(shape, String(step)) ? [shape[String(step)]!] : []))
    })
  }
  return [...new Set(shapes.flatMap(optionKeys))]
}

/** The keys an options schema knows at its top level (an object, or the object options of a union). */
export function optionKeys(schema: z.ZodType): string[] {
  return objectShapes(schema).flatMap((shape) => Object.keys(shape))
}

interface UnknownOption {
  /** Path of the object holding the key, from the options' root. */
  readonly path: readonly string[]
  readonly key: string
  /** The keys known at that place. */
  readonly known: readonly string[]
}

type Def = { type: string } & Record<string, unknown>
const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def

/** `schema` without its optional / nullable / default / readonly / pipe wrappers. */
function unwrap(schema: z.ZodType): z.ZodType {
  for (;;) {
    const def = defOf(schema)
    if (def.type === 'optional' || def.type === 'nullable' || def.type === 'default' || def.type === 'prefault' || def.type === 'readonly' || def.type === 'nonoptional' || def.type === 'catch')
      schema = def.innerType as z.ZodType
    else if (def.type === 'pipe') schema = def.in as z.ZodType
    else if (def.type === 'lazy') schema = (def.getter as () => z.ZodType)()
    else return schema
  }
}

type Shape = Readonly<Record<string, z.ZodType>>

/** The object shapes `schema` accepts, whose keys are options: its own, or its union's object options'. */
function objectShapes(schema: z.ZodType): Shape[] {
  const def = defOf(unwrap(schema))
  if (def.type === 'object') return [def.shape as Shape]
  if (def.type === 'union') return (def.options as z.ZodType[]).flatMap(objectShapes)
  return []
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value)

function unknownOption(schema: z.ZodType, value: unknown, path: readonly string[]): UnknownOption | undefined {
  const inner = unwrap(schema)
  const def = defOf(inner)
  if (def.type === 'object') {
    if (!isPlainObject(value)) return undefined
    const shape = def.shape as Shape
    // A loose object (`z.looseObject`) takes any key: its extra keys are the user's data.
    const open = def.catchall !== undefined && defOf(def.catchall as z.ZodType).type !== 'never'
    for (const key of Object.keys(value)) {
      if (!Object.hasOwn(shape, key)) {
        if (open) continue
        return { path, key, known: Object.keys(shape) }
      }
      const nested = unknownOption(shape[key]!, value[key], [...path, key])
      if (nested) return nested
    }
    return undefined
  }
  if (def.type === 'union') {
    const options = def.options as z.ZodType[]
    const objects = options.filter((option) => objectShapes(option).length > 0)
    if (!isPlainObject(value) || objects.length === 0) {
      for (const option of options.filter((option) => defOf(unwrap(option)).type === 'array' || defOf(unwrap(option)).type === 'record')) {
        const nested = unknownOption(option, value, path)
        if (nested) return nested
      }
      return undefined
    }
    // The first object option that takes every key of the value decides; else the first problem, over all their keys.
    const problems = objects.map((option) => unknownOption(option, value, path))
    if (problems.some((problem) => problem === undefined)) return undefined
    const first = problems[0]!
    return first.path.length === path.length ? { ...first, known: [...new Set(objects.flatMap(optionKeys))] } : first
  }
  if (def.type === 'record') {
    if (!isPlainObject(value)) return undefined
    for (const [key, entry] of Object.entries(value)) {
      const nested = unknownOption(def.valueType as z.ZodType, entry, [...path, key])
      if (nested) return nested
    }
    return undefined
  }
  if (def.type === 'array') {
    if (!Array.isArray(value)) return undefined
    for (const [index, entry] of value.entries()) {
      const nested = unknownOption(def.element as z.ZodType, entry, [...path, String(index)])
      if (nested) return nested
    }
  }
  return undefined
}

/**
 * The known name nearest to `given`: the same name in another case, else the one at the
 * smallest edit distance, when that distance is at most 2 (a third of the longer name for
 * long names) and at most half the shorter name, so an unrelated name gets no suggestion.
 */
export function nearestName(given: string, known: readonly string[]): string | undefined {
  const lower = given.toLowerCase()
  const sameCase = known.find((name) => name.toLowerCase() === lower)
  if (sameCase !== undefined) return sameCase
  if (given.length > MAX_NEAR_CHARS) return undefined // no option name is that long; bounds the O(n·m) distance
  let best: string | undefined
  let bestDistance = Infinity
  for (const name of known) {
    const d = editDistance(lower, name.toLowerCase())
    if (d < bestDistance) (best = name), (bestDistance = d)
  }
  if (best === undefined) return undefined
  const close = bestDistance <= Math.max(2, Math.floor(Math.max(given.length, best.length) / 3)) && bestDistance <= Math.floor(Math.min(given.length, best.length) / 2)
  return close ? best : undefined
}

/** Levenshtein distance with adjacent transpositions counted as one edit (optimal string alignment). */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)))
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1)
    }
  return d[a.length]![b.length]!
}

/**
 * `true` when an options interface and its schema's input type have the same keys, else
 * `never`: `true satisfies SameKeys<z.input<typeof Schema>, Options>` keeps a documented
 * interface and the schema that checks it from drifting apart at compile time.
 */
export type SameKeys<Schema, Interface> = [Exclude<keyof Schema, keyof Interface> | Exclude<keyof Interface, keyof Schema>] extends [never] ? true : never

/** The number schema under `schema`'s optional / default wrappers, if it is one. */
export function numberSchemaOf(schema: z.ZodType): z.ZodType | undefined {
  const inner = unwrap(schema)
  return defOf(inner).type === 'number' ? inner : undefined
}

/** The rule a number schema states, in the words of the errors: `an integer ≥ 1 and ≤ 4096`. */
export function numberRule(schema: z.ZodType): string {
  const checks = ((defOf(schema).checks as { _zod: { def: Record<string, unknown> } }[] | undefined) ?? []).map((check) => check._zod.def)
  const whole = checks.some((check) => check.check === 'number_format' && (check.format === 'safeint' || check.format === 'int32' || check.format === 'uint32'))
  const bounds = checks.flatMap((check) =>
    check.check === 'greater_than' ? [`${check.inclusive ? '≥' : '>'} ${String(check.value)}`] : check.check === 'less_than' ? [`${check.inclusive ? '≤' : '<'} ${String(check.value)}`] : [],
  )
  return `${whole ? 'an integer' : 'a number'}${bounds.length > 0 ? ` ${bounds.join(' and ')}` : ''}`
}

/**
 * Throw a {@link ConfigError} for the first number option of `value` (top level) outside
 * its schema's bounds: `onnxScorer: batchSize must be an integer ≥ 1 and ≤ 4096, got NaN`.
 * The schema is the one home of each number's bounds; a face checks the rest its own way.
 */
export function refuseOutOfBounds(schema: z.ZodType, value: unknown, where: string): void {
  if (!isPlainObject(value)) return
  for (const shape of objectShapes(schema))
    for (const [key, field] of Object.entries(shape)) {
      const number = numberSchemaOf(field)
      const given = value[key]
      if (number === undefined || given === undefined || number.safeParse(given).success) continue
      throw new ConfigError(`${where}${key} must be ${numberRule(number)}, got ${typeof given === 'number' ? String(given) : JSON.stringify(given)}`)
    }
}
