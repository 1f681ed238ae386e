// The plugin's `cache` option reaches suites through the provided context, with `dir` resolved against the root.
import { describe, expect, it } from 'vitest'
import { sceptic } from '../../src/vitest/plugin/plugin.ts'

function provided(options: Parameters<typeof sceptic>[0]): Record<string, unknown> {
  const context: Record<string, unknown> = {}
  const project = { config: { pool: 'forks', setupFiles: [] as string[], root: '/project', globalSetup: [] }, provide: (key: string, value: unknown) => (context[key] = value) }
  const vitest = { config: { snapshotOptions: { updateSnapshot: 'new' }, reporters: ['blob'], onConsoleLog: undefined } }
  ;(sceptic(options) as unknown as { configureVitest: (c: object) => void }).configureVitest({ vitest, project })
  return context.sceptic as Record<string, unknown>
}

describe('sceptic({ cache })', () => {
  it('passes the cache setting to suites with an absolute dir, false as false, and nothing when unset', () => {
    expect(provided({ cache: { dir: '.sceptic-cache', mode: 'read-only' } }).cache).toEqual({ dir: '/project/.sceptic-cache', mode: 'read-only' })
    expect(provided({ cache: { dir: '/abs/cache' } }).cache).toEqual({ dir: '/abs/cache' })
    expect(provided({ cache: false }).cache).toBe(false)
    expect('cache' in provided({})).toBe(false)
  })

  it('refuses an unknown mode in one line', () => {
    expect(() => provided({ cache: { mode: 'sometimes' as never } })).toThrow(/^sceptic\(\{ cache: \{ mode \} \}\) must be one of read-write, read-only, off, got "sometimes"$/)
  })
})
