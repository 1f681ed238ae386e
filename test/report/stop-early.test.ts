import { describe, expect, it } from 'vitest'
import { evaluateWithScorer, resultToJson } from '../../src/core/index.ts'
import { EvalResultJsonSchema } from '../../src/core/result/result.ts'
import { evaluateThreshold } from '../../src/core/thresholds/metrics.ts'
import { githubSummary } from '../../src/report/github.ts'
import { renderHtmlReport } from '../../src/report/html.ts'
import { render } from '../../src/report/terminal.ts'
import { bernoulliReader, bernoulliSet } from '../helpers/bernoulli-set.ts'

// Every renderer of a run that stopped early says so, with the same sentence, and marks its figures as from the scored sample.
const stopped = await evaluateWithScorer(bernoulliSet(1000, 0.9, 31), bernoulliReader, { thresholds: { accuracy: 0.7 }, stopEarly: true, statistics: false })
const full = await evaluateWithScorer(bernoulliSet(200, 0.7, 32), bernoulliReader, { thresholds: { accuracy: 0.7 }, stopEarly: true, statistics: false })
const { scored, total } = stopped.stopEarly!
const sentence = new RegExp(`decided after ${scored} of ${total} decisions, anytime-valid at α = 0\\.05: accuracy lower bound \\d+\\.\\d% ≥ 70%`)

describe('reports of a run that could stop early', () => {
  it('the terminal report opens with the stop and marks the sample', () => {
    const text = render(stopped, { color: false })
    expect(text).toMatch(new RegExp(`stopped early +${sentence.source}`))
    expect(text).toContain(`decisions          ${scored}   (stopped early: ${total - scored} of ${total} not scored; every figure below is from the scored sample)`)
    expect(render({ ...full, stopEarly: { ...full.stopEarly!, verdicts: {}, bounds: {} } }, { color: false })).toMatch(/stop early +no threshold to decide, so every decision was scored \(200\)/)
    expect(render(full, { color: false })).toMatch(/stop early +every decision scored \(200\): accuracy not decided sequentially at α = 0\.05, so the full set decides/)
  })

  it('the HTML page and the job summary carry the same sentence; JSON keeps stopEarly and reads back', () => {
    const json = JSON.parse(JSON.stringify(resultToJson(stopped)))
    expect(EvalResultJsonSchema.parse(json).stopEarly).toEqual(stopped.stopEarly)
    const html = renderHtmlReport({ result: json, records: stopped.records, label: 'run' })
    expect(html).toMatch(new RegExp(`<p class="verdict stop-early">Stopped early: ${sentence.source}</p>`))
    expect(html).toContain(`stopped early: ${total - scored} of ${total} not scored; every figure is from the scored sample`)
    const markdown = githubSummary([{ suite: 's', file: 'e.eval.ts', thresholds: { accuracy: 0.7 }, result: json }])
    expect(markdown).toMatch(new RegExp(`\\*\\*Stopped early:\\*\\* ${sentence.source}`))
    expect(markdown).toContain('| accuracy |')
    expect(markdown).toContain('✅')
  })

  it('the threshold verdict: stopped runs by their bounds, full runs by the full set with a note', () => {
    const pass = evaluateThreshold(stopped, 'accuracy', 0.7)
    expect(pass).toMatchObject({ pass: true, reason: null })
    expect(pass.sequential).toMatch(new RegExp(`^decided after ${scored} of ${total} decisions, anytime-valid at α = 0\\.05: lower bound \\d+\\.\\d% ≥ 70%$`))
    const undecided = evaluateThreshold(full, 'accuracy', 0.7)
    expect(undecided.sequential).toMatch(/^not decided sequentially \(anytime-valid bounds \[\d+\.\d%, \d+\.\d%\] at α = 0\.05\): all 200 decisions scored, the full-set value decides$/)
    expect(undecided.pass).toBe(evaluateThreshold({ ...full, stopEarly: undefined }, 'accuracy', 0.7).pass)
    // A key the run did not decide when it stopped fails: it was not measured on the full set.
    const other = evaluateThreshold({ ...stopped, stopEarly: { ...stopped.stopEarly!, verdicts: { ...stopped.stopEarly!.verdicts, accuracy: 'fail', slotSensitivityGap: 'undecided' } } }, 'slotSensitivityGap', { max: 0.5 })
    expect(other).toMatchObject({ pass: false, reason: `not decided: the run stopped after ${scored} of ${total} decisions when accuracy failed; score every decision (without stopEarly) to measure it` })
  })
})

describe('a malformed stopEarly in a result read back', () => {
  it('is ignored by every renderer and the verdict, never a crash', () => {
    const json = { ...JSON.parse(JSON.stringify(resultToJson(stopped))), stopEarly: { stopped: true } }
    expect(render({ ...json, records: [] }, { color: false })).not.toContain('stopped early')
    expect(renderHtmlReport({ result: json, records: null, label: 'run' })).not.toContain('stop-early')
    expect(githubSummary([{ suite: 's', file: 'e.eval.ts', thresholds: { accuracy: 0.7 }, result: json }])).not.toContain('Stopped early')
    expect(evaluateThreshold(json, 'accuracy', 0.7)).toMatchObject({ pass: true, reason: null })
    expect(evaluateThreshold(json, 'accuracy', 0.7).sequential).toBeUndefined()
  })
})
