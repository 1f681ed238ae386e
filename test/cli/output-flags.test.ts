// One convention for outputs across every command: each file or folder written is named by
// `--<what>-out`, shown in the usage line; the old names are refused naming the new one.
import { describe, expect, it } from 'vitest'
import { parse, RENAMED_FLAGS } from '../../src/cli/args.ts'
import { commands } from '../../src/cli/commands.ts'

/** What every command writes, by option (docs/cli.md#output-files). */
const OUTPUTS: Record<string, string[]> = {
  evaluate: ['json-out', 'records-out'],
  merge: ['json-out', 'records-out'],
  compare: ['json-out'],
  report: ['html-out'],
  split: ['train-out', 'eval-out'],
  'optimize-model': ['model-out'],
  'quantize-model': ['model-out'],
  schema: [],
  cache: [],
}

describe('output flags', () => {
  it('every command names its outputs --<what>-out, and only those; each takes a FILE or DIR and is in the usage', () => {
    expect(Object.keys(commands).sort()).toEqual(Object.keys(OUTPUTS).sort())
    for (const [name, command] of Object.entries(commands)) {
      const outs = Object.keys(command.options).filter((option) => /(^|-)(out|output)(-|$)/.test(option))
      expect(outs, name).toEqual(OUTPUTS[name])
      for (const option of outs) {
        const spec = command.options[option]!
        expect(spec.type, `${name} --${option}`).toBe('string')
        expect(spec.value, `${name} --${option}`).toMatch(/^(FILE|DIR)\b/)
        expect(command.usage, name).toContain(`--${option} ${spec.value}`)
      }
      // No output hides behind a positional any more (OUT_DIR) or a bare short option.
      expect(command.usage, name).not.toMatch(/\bOUT_DIR\b|(^| )-o /)
    }
  })

  it('-o stays the short form of report --html-out', () => {
    expect(commands.report!.options['html-out']!.short).toBe('o')
    expect(parse(['r.json', '-o', 'x.html'], commands.report!.options, commands.report!.usage).values['html-out']).toBe('x.html')
  })

  it('an old output name is refused naming the new one, only where the new one exists', () => {
    for (const [old, now] of Object.entries(RENAMED_FLAGS)) {
      const [name, command] = Object.entries(commands).find(([, c]) => Object.hasOwn(c.options, now))!
      expect(() => parse([`--${old}`, 'x'], command.options, command.usage), name).toThrow(`--${old} is now --${now}`)
    }
    // evaluate has no --html-out: --output there is just unknown.
    expect(() => parse(['--output', 'x'], commands.evaluate!.options, commands.evaluate!.usage)).toThrow(/unknown option --output/)
  })
})
