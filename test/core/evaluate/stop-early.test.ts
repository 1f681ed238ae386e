import { describe, expect, it } from 'vitest'
import { ConfigError, evaluateWithScorer, type ScoreFn } from '../../../src/core/index.ts'
import { bernoulliConfidenceSequence } from '../../../src/core/math/confidence-sequence.ts'
import { bernoulliReader, bernoulliSet } from '../../helpers/bernoulli-set.ts'

/** The reader, counting the decisions it was asked about. */
function counting(): { score: ScoreFn; seen: Set<string> } {
  const seen = new Set<string>()
  return { seen, score: (requests, context) => (requests.forEach((r) => seen.add(r.state + r.criterion.key)), bernoulliReader(requests, context)) }
}

describe('evaluateWithScorer with stopEarly', () => {
  it('stops a clear pass early, says so, and counts every row', async () => {
    const data = [...bernoulliSet(1000, 0.9, 1), { id: 'u', state: 'o0 right steady', criterion: { key: 'even', options: [{ id: 'o0', text: 'a' }, { id: 'o1', text: 'b' }] } }]
    const requests: number[] = []
    const result = await evaluateWithScorer(data, (r, c) => (requests.push(r.length), bernoulliReader(r, c)), { thresholds: { accuracy: 0.7, orderConsistency: 0.8 }, stopEarly: true, onWarning: () => {} })
    const s = result.stopEarly!
    expect(s).toMatchObject({ alpha: 0.05, total: 1000, stopped: true, verdicts: { accuracy: 'pass', orderConsistency: 'pass' } })
    expect(s.scored).toBeLessThan(500)
    // The batch is at most 64 decisions: every scorer call held at most 64 · 4 requests.
    expect(Math.max(...requests)).toBeLessThanOrEqual(64 * 4)
    expect(requests.reduce((a, b) => a + b, 0)).toBe(s.scored * 4)
    expect(result.manifest.forwardPasses).toBe(s.scored * 4)
    // Rows read = scored + failed + unlabelled + notScored; records only for the scored decisions.
    expect(result.n + result.failed + result.manifest.unlabelledSkipped + result.manifest.notScored!).toBe(data.length)
    expect(result.records).toHaveLength(result.n)
    expect(result.n).toBe(s.scored)
    // Records stay in input order.
    const ids = result.records.map((r) => Number(r.id.slice(1)))
    expect(ids).toEqual([...ids].sort((a, b) => data.findIndex((d) => d.id === `d${a}`) - data.findIndex((d) => d.id === `d${b}`)))
    // The bounds are at least as tight as the two-sided confidence sequence of the scored hits (each end is one-sided at α);
    // a threshold decided at an earlier look keeps that look's bounds.
    const hits = result.records.filter((r) => r.prediction === r.gold).length
    const cs = bernoulliConfidenceSequence(hits, result.n, 0.05)
    expect(s.bounds.accuracy!.lower).toBeGreaterThanOrEqual(0.7)
    expect(s.bounds.accuracy!.upper).toBeGreaterThanOrEqual(s.bounds.accuracy!.lower)
    expect(s.bounds.orderConsistency!.lower).toBeGreaterThanOrEqual(0.8)
    expect(cs.lower).toBeLessThan(hits / result.n)
    expect(result.manifest.thresholds).toEqual({ accuracy: 0.7, orderConsistency: 0.8 })
  })

  it('a file sorted wrong-first does not fool it: the order is a seeded shuffle', async () => {
    // 60% right overall, all wrong ones first: in file order the first look would fail a 0.5 bound.
    const data = bernoulliSet(600, 0.6, 2)
    const a = await evaluateWithScorer(data, bernoulliReader, { thresholds: { accuracy: 0.5 }, stopEarly: { batch: 16 }, statistics: false })
    const b = await evaluateWithScorer(data, bernoulliReader, { thresholds: { accuracy: 0.5 }, stopEarly: { batch: 16 }, statistics: false })
    expect(a.stopEarly!.verdicts.accuracy).not.toBe('fail')
    expect(a.records.map((r) => r.id)).toEqual(b.records.map((r) => r.id))
    const c = await evaluateWithScorer(data, bernoulliReader, { thresholds: { accuracy: 0.5 }, stopEarly: { batch: 16 }, statistics: false, seed: 5 })
    expect(c.records.map((r) => r.id)).not.toEqual(a.records.map((r) => r.id))
  })

  it('with balanced accuracy a threshold the order is stratified: a rare class is read from the first look, each decision scored once', async () => {
    // 1000 decisions, 40 of them gold o3 and always wrong, all at the end of the file; the rest right.
    // Balanced accuracy is 0.75 · 0.98 ≈ 0.74 against 0.9: a fail that a shuffled order learns only as o3 trickles in.
    const data = Array.from({ length: 1000 }, (_, i) => {
      const gold = i >= 960 ? 'o3' : `o${i % 3}`
      return { id: `d${i}`, state: `${gold} ${gold === 'o3' || i % 50 === 0 ? 'wrong' : 'right'} steady`, criterion: { key: 'k', options: ['o0', 'o1', 'o2', 'o3'].map((id) => ({ id, text: id })) }, answer_id: gold }
    })
    const requests: number[] = []
    const result = await evaluateWithScorer(data, (r, c) => (requests.push(r.length), bernoulliReader(r, c)), { thresholds: { balancedAccuracy: 0.9 }, stopEarly: true, statistics: false })
    const s = result.stopEarly!
    expect(s).toMatchObject({ stopped: true, verdicts: { balancedAccuracy: 'fail' } })
    expect(s.bounds.balancedAccuracy!.upper).toBeLessThan(0.9)
    expect(s.scored).toBeLessThan(100)
    // Rounds hold one decision per class: the 4% class is a quarter of what was read.
    expect(result.records.filter((r) => r.gold === 'o3').length).toBeGreaterThanOrEqual(s.scored / 5)
    // A decision drawn in several rounds was scored once: 4 orderings per decision scored.
    expect(requests.reduce((a, b) => a + b, 0)).toBe(s.scored * 4)
    expect(new Set(result.records.map((r) => r.id)).size).toBe(s.scored)
  })

  it('in a stratified order the baseline looks weigh the answers as the set does, not one per round', async () => {
    // Answer a (700 decisions) lost order consistency on 30% of them; b, c, d (100 each) gained it on half.
    // The set dropped 6 points (210 worse, 150 better): past the 5-point margin, so "not worse" must not pass.
    // Read one answer per round, the three small answers would outvote a and pass it.
    const data = Array.from({ length: 1000 }, (_, i) => {
      const gold = i < 700 ? 'o0' : `o${1 + ((i - 700) % 3)}`
      const wobbly = gold === 'o0' && i % 10 < 3
      return { id: `d${i}`, state: `${gold} right ${wobbly ? 'wobbly' : 'steady'}`, criterion: { key: 'k', options: ['o0', 'o1', 'o2', 'o3'].map((id) => ({ id, text: id })) }, answer_id: gold }
    })
    const before = new Map(data.map((d, i) => [d.id, d.answer_id === 'o0' || i % 2 === 0]))
    const baseline = { alpha: 0.05, detectableDrop: 0.1, pair: (record: { id: string }) => ({ consistent: before.get(record.id)!, strict: before.get(record.id)! }) }
    for (const seed of [1, 2, 3, 4, 5]) {
      const result = await evaluateWithScorer(data, bernoulliReader, { thresholds: { balancedAccuracy: 0.5 }, stopEarly: true, statistics: false, seed, baseline })
      expect(result.stopEarly!.baseline).not.toBe('pass')
      // The counts the verdict was read from are kept for the baseline line.
      const pairs = result.stopEarly!.baselinePairs!
      expect(pairs.paired).toBeGreaterThan(0)
      expect(pairs.comparable).toBe(pairs.paired)
    }
  })

  it('stops on the first failed threshold, leaving the others undecided', async () => {
    const data = bernoulliSet(1000, 0.5, 3)
    const result = await evaluateWithScorer(data, bernoulliReader, { thresholds: { balancedAccuracy: 0.7, orderConsistency: 0.5, slotSensitivityGap: { max: 0.5 } }, stopEarly: true, statistics: false })
    expect(result.stopEarly).toMatchObject({ stopped: true, verdicts: { balancedAccuracy: 'fail', slotSensitivityGap: 'undecided' } })
    expect(result.stopEarly!.bounds.balancedAccuracy!.upper).toBeLessThan(0.7)
    expect(result.stopEarly!.bounds.slotSensitivityGap).toBeUndefined()
    expect(result.stopEarly!.scored).toBeLessThan(400)
  })

  it('a threshold at the true rate stays undecided and every decision is scored', async () => {
    const { score, seen } = counting()
    const data = bernoulliSet(300, 0.7, 4)
    const result = await evaluateWithScorer(data, score, { thresholds: { accuracy: 0.7 }, stopEarly: { alpha: 0.01 }, statistics: false })
    expect(result.stopEarly).toMatchObject({ stopped: false, scored: 300, total: 300, verdicts: { accuracy: 'undecided' } })
    expect(result.manifest.notScored).toBe(0)
    expect(result.n).toBe(300)
    expect(seen.size).toBeGreaterThan(0)
  })

  it('minDecisions holds the first verdict back; no thresholds means no stop', async () => {
    const data = bernoulliSet(400, 0.95, 5)
    const held = await evaluateWithScorer(data, bernoulliReader, { thresholds: { accuracy: 0.5 }, stopEarly: { batch: 10, minDecisions: 200 }, statistics: false })
    expect(held.stopEarly!.scored).toBe(200)
    const none = await evaluateWithScorer(data, bernoulliReader, { stopEarly: true, statistics: false })
    expect(none.stopEarly).toMatchObject({ stopped: false, scored: 400, verdicts: {}, bounds: {} })
    const without = await evaluateWithScorer(data, bernoulliReader, { thresholds: { accuracy: 0.5 }, statistics: false })
    expect(without.stopEarly).toBeUndefined()
    expect(without.manifest.notScored).toBeUndefined()
  })

  it('circular accuracy and the worst criterion are decided early too', async () => {
    const result = await evaluateWithScorer(bernoulliSet(2000, 0.95, 8), bernoulliReader, { thresholds: { circularAccuracy: 0.6, perCriterion: 0.6 }, stopEarly: true, statistics: false })
    expect(result.stopEarly).toMatchObject({ stopped: true, verdicts: { circularAccuracy: 'pass', perCriterion: 'pass' } })
    expect(result.stopEarly!.bounds.perCriterion!.lower).toBeGreaterThanOrEqual(0.6)
    expect(result.stopEarly!.scored).toBeLessThan(1000)
  })

  it('with one ordering order consistency is never decided early (nothing could move a pick)', async () => {
    const result = await evaluateWithScorer(bernoulliSet(300, 0.95, 7), bernoulliReader, { thresholds: { orderConsistency: 0.5 }, stopEarly: true, debias: 'none', statistics: false })
    expect(result.stopEarly).toMatchObject({ stopped: false, scored: 300, verdicts: { orderConsistency: 'undecided' }, bounds: { orderConsistency: { lower: 0, upper: 1 } } })
  })

  it('refuses bad settings with a ConfigError', async () => {
    const data = bernoulliSet(20, 0.9, 6)
    const run = (options: object) => evaluateWithScorer(data, bernoulliReader, { thresholds: { accuracy: 0.5 }, ...options })
    await expect(run({ stopEarly: { alpha: 1 } })).rejects.toThrow(ConfigError)
    await expect(run({ stopEarly: { batch: 0 } })).rejects.toThrow(/batch/)
    await expect(run({ stopEarly: { minDecisions: -1 } })).rejects.toThrow(/minDecisions/)
    await expect(run({ stopEarly: { alfa: 0.1 } })).rejects.toThrow(/unknown option `stopEarly.alfa` in evaluateWithScorer options — did you mean `stopEarly.alpha`?/)
    await expect(run({ stopEarly: true, debias: 'pride' })).rejects.toThrow(/pride/)
    await expect(run({ stopEarly: true, thresholds: { acuracy: 0.5 } })).rejects.toThrow(/unknown threshold "acuracy"/)
    await expect(run({ stopEarly: true, thresholds: { accuracy: 1.5 } })).rejects.toThrow(ConfigError)
  })
})

describe('early stopping, simulated (seeded)', () => {
  /** The set's own value of a metric (what the full run would measure): accuracy, or the mean of the gold answers' recalls. */
  function setValue(key: string, data: readonly { state: string; answer_id?: string | null | undefined }[]): number {
    const right = (d: { state: string }) => d.state.includes('right')
    if (key === 'accuracy') return data.filter(right).length / data.length
    const golds = [...new Set(data.map((d) => d.answer_id))]
    return golds.reduce((sum, g) => sum + data.filter((d) => d.answer_id === g && right(d)).length / data.filter((d) => d.answer_id === g).length, 0) / golds.length
  }

  it.each(['accuracy', 'balancedAccuracy'])('%s: at a true rate 0.02 below the bound, passes early a set that is below it in at most α + 3σ of 200 runs', async (key) => {
    const alpha = 0.05
    const runs = 200
    let falsePasses = 0
    let scored = 0
    for (let run = 0; run < runs; run++) {
      const data = bernoulliSet(400, 0.68, 100 + run)
      const result = await evaluateWithScorer(data, bernoulliReader, {
        thresholds: { [key]: 0.7 },
        stopEarly: { alpha },
        statistics: false,
        debias: 'none',
        seed: run,
      })
      // A pass is wrong when the whole set is below the bound: the full run would have failed it.
      if (result.stopEarly!.verdicts[key] === 'pass' && setValue(key, data) < 0.7) falsePasses++
      scored += result.stopEarly!.scored / 400
    }
    expect(falsePasses / runs).toBeLessThanOrEqual(alpha + 3 * Math.sqrt((alpha * (1 - alpha)) / runs))
    expect(scored / runs).toBeGreaterThan(0.5) // close to the bound, most of the set is needed
  }, 180_000)
})
