// Plugin-level suite defaults: checked with a ConfigError naming the option, and filled
// into a suite's options only where the suite leaves them unset.
import { describe, expect, test } from 'vitest'
import { ConfigError } from '../../../src/core/index.ts'
import { sceptic } from '../../../src/vitest/plugin/plugin.ts'
import { SUITE_DEFAULT_KEYS } from '../../../src/run/settings.ts'
import { suiteDefaultsFrom, withSuiteDefaults } from '../../../src/vitest/plugin/suite-defaults.ts'
import { describeDecisions } from '../../../src/vitest/suite/describe-decisions.ts'
import { checkGateSettings } from '../../../src/suite/gate-settings.ts'

describe('suiteDefaultsFrom', () => {
  test('picks the suite defaults out of the plugin options and leaves the rest', () => {
    expect(SUITE_DEFAULT_KEYS).toEqual(['debias', 'average', 'prideFraction', 'statistics', 'chunkSize', 'epochs', 'reducer', 'timeout', 'maxFailureRate', 'stopEarly'])
    expect(suiteDefaultsFrom({ baseline: 'b', debias: 'pride', prideFraction: 0.5, reducer: 'pass_at_2', epochs: 2, statistics: { resamples: 10 }, maxFailureRate: 0 })).toEqual({
      debias: 'pride',
      prideFraction: 0.5,
      reducer: 'pass_at_2',
      epochs: 2,
      statistics: { resamples: 10 },
      maxFailureRate: 0,
    })
    expect(suiteDefaultsFrom({})).toEqual({})
  })

  test.each([
    [{ debias: 'nope' }, 'sceptic({ debias })', '"nope"'],
    [{ average: 'geometric' }, 'sceptic({ average })', '"geometric"'],
    [{ prideFraction: 0 }, 'sceptic({ prideFraction })', 'got 0'],
    [{ prideFraction: 1.5 }, 'sceptic({ prideFraction })', 'got 1.5'],
    [{ statistics: 'yes' }, 'sceptic({ statistics })', '"yes"'],
    [{ statistics: { resamples: 0 } }, 'sceptic({ statistics }): statistics.resamples', 'got 0'],
    [{ statistics: { level: 1 } }, 'sceptic({ statistics }): statistics.level', 'got 1'],
    [{ chunkSize: 0 }, 'sceptic({ chunkSize })', 'got 0'],
    [{ chunkSize: 1.5 }, 'sceptic({ chunkSize })', 'got 1.5'],
    [{ epochs: 0 }, 'sceptic({ epochs })', 'got 0'],
    [{ reducer: 'pass_at_0' }, 'sceptic({ reducer })', 'reducer "pass_at_0" is not known'],
    [{ reducer: 3 }, 'sceptic({ reducer })', 'got 3'],
    [{ timeout: 0 }, 'sceptic({ timeout })', 'got 0'],
    [{ maxFailureRate: 1.01 }, 'sceptic({ maxFailureRate })', 'got 1.01'],
  ])('%j is a ConfigError naming the option', (options, names, got) => {
    const error = (() => {
      try {
        suiteDefaultsFrom(options)
      } catch (error) {
        return error as Error
      }
    })()
    expect(error).toBeInstanceOf(ConfigError)
    expect(error!.message).toContain(`vitest-sceptic: ${names}`)
    expect(error!.message).toContain(got)
    expect(error!.message).not.toContain('\n')
  })

  test('the plugin refuses a bad default when it is created, before any test runs', () => {
    expect(() => sceptic({ prideFraction: 2 })).toThrow('vitest-sceptic: sceptic({ prideFraction })')
  })
})

describe('baseline gate settings', () => {
  // Before: not checked where given; the gate test itself then died on a RangeError from the power check.
  test.each([0, 1, NaN, -0.05, 2])('alpha %s is refused by the plugin and by a suite', (alpha) => {
    expect(() => sceptic({ alpha })).toThrow(`vitest-sceptic: sceptic(): alpha must be a significance level in (0, 1), got ${alpha}`)
    expect(() => describeDecisions('s', { data: [], scorer: () => [], alpha })).toThrow(
      `describeDecisions("s"): alpha must be a significance level in (0, 1), got ${alpha}`,
    )
  })

  test.each([0, 1.5, NaN])('detectableDrop %s is refused', (detectableDrop) => {
    expect(() => checkGateSettings('here', { detectableDrop })).toThrow(`here: detectableDrop must be a share of decisions in (0, 1], got ${detectableDrop}`)
    expect(() => sceptic({ detectableDrop })).toThrow(ConfigError)
  })

  test('in-range settings pass', () => {
    expect(() => checkGateSettings('here', { alpha: 0.05, detectableDrop: 1 })).not.toThrow()
  })
})

describe('withSuiteDefaults', () => {
  test("fills what the suite leaves unset; the suite's own values (also false and 0) win", () => {
    const defaults = { debias: 'pride', statistics: true, maxFailureRate: 0.2, epochs: 3 } as const
    expect(withSuiteDefaults({ data: 'd', debias: 'cyclic', statistics: false, maxFailureRate: 0, epochs: undefined }, defaults)).toEqual({
      data: 'd',
      debias: 'cyclic',
      statistics: false,
      maxFailureRate: 0,
      epochs: 3,
    })
    const options = { data: 'd' }
    expect(withSuiteDefaults(options, undefined)).toBe(options)
  })
})
