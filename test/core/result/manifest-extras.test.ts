// Extra manifest entries can add, never override: every entry the evaluator computes is on
// the list that `checkManifestExtras` refuses, so a new computed entry cannot be forged.
import { describe, expect, it } from 'vitest'
import { evaluateWithScorer } from '../../../src/core/evaluate/index.ts'
import { COMPUTED_MANIFEST_KEYS } from '../../../src/core/result/manifest-extras.ts'
import { cachedScorer } from '../../../src/cache/cached-scorer.ts'
import { CacheStore } from '../../../src/cache/store.ts'
import { alwaysFirst, decision } from '../../helpers/decisions.ts'
import { useTempDirs } from '../../helpers/temp.ts'

const temp = useTempDirs('sceptic-manifest-')

describe('computed manifest entries', () => {
  it('are all refused as extras, under every debias mode and with the cache in front', async () => {
    const decisions = [decision(3, 0, { id: 'a' }), decision(2, 1, { id: 'b' }), decision(4, 2, { id: 'c' })]
    const store = new CacheStore(temp(), { mode: 'read-write' })
    const cached = cachedScorer(alwaysFirst, { identity: { kind: 'user', label: 'always first', settings: { cacheKey: 'a' } }, store })
    for (const debias of ['none', 'cyclic', 'calibrated', 'pride'] as const) {
      const result = await evaluateWithScorer(decisions, cached, { debias, onWarning: () => {} })
      const computed = Object.keys(result.manifest)
      expect(computed.filter((key) => !COMPUTED_MANIFEST_KEYS.includes(key)), debias).toEqual([])
      for (const key of computed)
        await expect(evaluateWithScorer(decisions, alwaysFirst, { debias, manifest: { [key]: 'forged' } }), key).rejects.toThrow(/computed by the evaluation/)
    }
  })
})
