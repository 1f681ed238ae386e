// atCallSite and callSite on planted stacks: the package's frames go, the user's stay, and the
// call site stands in when no user frame is left.
import { describe, expect, it } from 'vitest'
import { atCallSite, atUserLine, callSite, inPackage } from '../../src/suite/user-frame.ts'

const DIRS = ['/proj/node_modules/vitest-sceptic/dist/', '/proj/node_modules/vitest-sceptic/src/']
const PKG = '    at thresholdTest (file:///proj/node_modules/vitest-sceptic/dist/chunk-AB12.js:175:9)'
const MAPPED = '    at thresholdTest (/proj/node_modules/vitest-sceptic/src/vitest/suite/describe-decisions.ts:175:9)'
const VITEST = '    at file:///proj/node_modules/@vitest/runner/dist/index.js:1:1'
const NODE = '    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)'
const USER = '    at /proj/evals/triage.eval.ts:12:1'
const SITE = '    at /proj/evals/triage.eval.ts:8:1'

function planted(...frames: string[]): Error {
  const error = new Error('expected balancedAccuracy ≥ 0.9\nsecond line')
  error.stack = ['Error: expected balancedAccuracy ≥ 0.9', 'second line', ...frames].join('\n')
  return error
}

describe('errors at the user\'s line', () => {
  it('knows the package\'s frames, file URLs and source-mapped paths alike', () => {
    expect(inPackage(PKG, DIRS)).toBe(true)
    expect(inPackage(MAPPED, DIRS)).toBe(true)
    expect(inPackage(USER, DIRS)).toBe(false)
    // A user's own src/ folder is not the package's.
    expect(inPackage('    at /proj/src/app.ts:1:1', DIRS)).toBe(false)
  })

  it('the call site is the first frame outside the package and the runtime', () => {
    expect(callSite(['Error', PKG, MAPPED, VITEST, SITE, USER].join('\n'), DIRS)).toBe(SITE)
    expect(callSite(['Error', PKG, NODE].join('\n'), DIRS)).toBeUndefined()
    expect(callSite('Error: no frames', DIRS)).toBeUndefined()
  })

  it('an error with only package frames points at the call site; the message is kept', () => {
    const error = atCallSite(planted(PKG, MAPPED, VITEST, NODE), SITE, DIRS)
    expect(error.stack).toBe(['Error: expected balancedAccuracy ≥ 0.9', 'second line', SITE, VITEST, NODE].join('\n'))
    expect(error.message).toBe('expected balancedAccuracy ≥ 0.9\nsecond line')
  })

  it('Jest\'s frames and native ones are not call sites: the eval file is', () => {
    const circus = '    at Promise.finally.completed (/proj/node_modules/jest-circus/build/jestAdapterInit.js:1834:28)'
    const runtime = '    at Runtime._execModule (/proj/node_modules/jest-runtime/build/index.js:1439:24)'
    const native = '    at new Promise (<anonymous>)'
    const evalFile = '    at Object.<anonymous> (/proj/evals/triage.eval.js:4:1)'
    expect(callSite(['Error', PKG, native, evalFile, runtime].join('\n'), DIRS)).toBe(evalFile)
    // An error built in the package, in a Jest test, points at the call site.
    expect(atCallSite(planted(PKG, native, circus), SITE, DIRS).stack!.split('\n').slice(2)).toEqual([SITE, native, circus])
  })

  it('an error from the user\'s own code keeps its user frame first, without the package\'s', () => {
    const error = atCallSite(planted(PKG, USER, MAPPED), SITE, DIRS)
    expect(error.stack!.split('\n').slice(2)).toEqual([USER])
  })

  it('the causes lose the package\'s frames too, keeping their own user frames, without the call site', () => {
    const inner = planted(PKG, USER)
    const middle = Object.assign(planted(PKG, MAPPED), { cause: inner })
    const outer = atCallSite(Object.assign(planted(PKG), { cause: middle }), SITE, DIRS)
    expect(outer.stack!.split('\n').slice(2)).toEqual([SITE])
    expect(middle.stack!.split('\n').slice(2)).toEqual([])
    expect(inner.stack!.split('\n').slice(2)).toEqual([USER])
    // A cause that is its own cause does not loop.
    const loop = planted(PKG)
    ;(loop as { cause?: unknown }).cause = loop
    expect(atCallSite(loop, SITE, DIRS).stack).toContain(SITE)
  })

  it('leaves alone what it cannot rewrite: no stack, no frames, not an error, a frozen error', () => {
    expect(atCallSite('text', SITE, DIRS)).toBe('text')
    expect(atCallSite(null, SITE, DIRS)).toBeNull()
    const bare = planted()
    expect(atCallSite(bare, SITE, DIRS).stack).toBe('Error: expected balancedAccuracy ≥ 0.9\nsecond line')
    const frozen = Object.freeze(planted(PKG))
    expect(atCallSite(frozen, SITE, DIRS).stack).toContain(PKG)
  })

  it('atUserLine rethrows the same error, rewritten; returns the value otherwise', async () => {
    await expect(atUserLine(SITE, () => 7)).resolves.toBe(7)
    const thrown = planted(PKG)
    // The real package dirs here are this repository's src/ and dist/; a dist/ frame of it is dropped.
    const ours = `    at f (${new URL('../../dist/chunk.js', import.meta.url).pathname}:1:1)`
    thrown.stack = `Error: x\n${ours}`
    const caught = await atUserLine(SITE, async () => {
      throw thrown
    }).catch((error: unknown) => error)
    expect(caught).toBe(thrown)
    expect((caught as Error).stack).toBe(`Error: x\n${SITE}`)
  })
})
