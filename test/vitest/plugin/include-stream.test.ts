// Pure helpers of the plugin and reporter: the include it builds, where the report goes.
import { describe, expect, test } from 'vitest'
import { configDefaults } from 'vitest/config'
import { withEvalInclude } from '../../../src/vitest/plugin/include.ts'
import { machineReporterOnStdout } from '../../../src/vitest/reporter/report-stream.ts'
import { withRerunTriggers } from '../../../src/vitest/plugin/watch.ts'

describe('withEvalInclude', () => {
  const evals = ['evals/**/*.eval.ts']
  test('adds the eval globs after the project\'s own', () => {
    expect(withEvalInclude(['src/**/*.test.ts'], evals, configDefaults.include)).toEqual(['src/**/*.test.ts', 'evals/**/*.eval.ts'])
  })
  test('an unset include keeps Vitest\'s default, so `*.test.ts` files still run', () => {
    expect(withEvalInclude(undefined, evals, configDefaults.include)).toEqual([...configDefaults.include, 'evals/**/*.eval.ts'])
  })
  test('a glob already listed is not repeated', () => {
    expect(withEvalInclude(['evals/**/*.eval.ts'], evals, configDefaults.include)).toEqual(['evals/**/*.eval.ts'])
  })
})

describe('machineReporterOnStdout', () => {
  test.each([
    [{ reporters: ['default'] }, false],
    [{ reporters: ['json'] }, true],
    [{ reporters: ['default', 'junit'] }, true],
    [{ reporters: ['tap-flat'] }, true],
    [{ reporters: ['json'], outputFile: 'r.json' }, false],
    [{ reporters: ['json', 'junit'], outputFile: { json: 'r.json' } }, true],
    [{ reporters: ['json', 'junit'], outputFile: { json: 'r.json', junit: 'j.xml' } }, false],
    [{ reporters: [['json', { outputFile: 'r.json' }]] }, false],
    [{ reporters: [['junit', {}]] }, true],
    [{ reporters: [{ onInit() {} }] }, false],
    [{}, false],
  ])('Vitest 4.1: %j → %s', (config, expected) => {
    expect(machineReporterOnStdout(config, '4.1.12')).toBe(expected)
  })
  test.each([
    [{ reporters: ['json'] }, false],
    [{ reporters: ['junit'] }, false],
    [{ reporters: [['json', { stdout: true }]] }, true],
    [{ reporters: [['junit', { stdout: true }]] }, true],
    [{ reporters: [['json', { stdout: true, outputFile: 'r.json' }]] }, false],
    [{ reporters: ['tap'] }, true],
  ])('Vitest 5 writes json and junit to a file unless told `stdout: true`: %j → %s', (config, expected) => {
    expect(machineReporterOnStdout(config, '5.1.2')).toBe(expected)
  })
})

describe('withRerunTriggers', () => {
  const defaults = ['**/package.json/**', '**/{vitest,vite}.config.*/**']
  test('keeps Vitest\'s default when unset, adds decision files and the baseline directory', () => {
    expect(withRerunTriggers(undefined, 'evals/__baselines__', defaults)).toEqual([...defaults, '**/*.jsonl', '**/evals/__baselines__/**'])
  })
  test('keeps the config\'s own; an absolute baseline stays absolute; no baseline, no baseline trigger', () => {
    expect(withRerunTriggers(['x/**'], '/abs/base/', defaults)).toEqual(['x/**', '**/*.jsonl', '/abs/base/**'])
    expect(withRerunTriggers(['**/*.jsonl'], undefined, defaults)).toEqual(['**/*.jsonl'])
  })
})
