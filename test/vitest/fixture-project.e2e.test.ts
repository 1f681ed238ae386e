// End-to-end: spawn `vitest run` on the fixture projects in test/fixtures/ and check
// exit codes, output and the files written . The steps share one
// scratch directory and run in order: each builds on what the previous one wrote.
import { readFileSync, existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { useTempDirs } from '../helpers/temp.ts'
import { FIXTURES, useDistSnapshot, vitest as spawnVitest } from '../helpers/vitest.ts'

// Each spawned run takes seconds (more on 2 busy cores); some tests spawn three.
const E2E_TIMEOUT = 180_000
const PROJECT = join(FIXTURES, 'project')
const BROKEN = join(FIXTURES, 'broken')
const tempDir = useTempDirs('sceptic-e2e-')

// Fixture runs use a private copy of dist/ (see snapshotDist).
const dist = useDistSnapshot()
const vitest = (args: string[], env: Record<string, string> = {}) => spawnVitest(args, { SCEPTIC_E2E_DIST: dist(), ...env })

describe('fixture project: thresholds, snapshots and the baseline gate', () => {
  const out = tempDir()
  const env = (extra: Record<string, string> = {}) => ({ SCEPTIC_FIXTURE_OUT: out, ...extra })
  const run = (args: string[], extra: Record<string, string> = {}) => vitest(['run', '--root', PROJECT, ...args], env(extra))
  const baselineFile = join(out, 'baselines', 'fixture-triage.json')
  const snapshotFile = join(out, 'snapshots', 'triage.eval.ts.snap')

  test('under CI=true a missing baseline and a missing snapshot fail, and nothing is written', async () => {
    const { code, output } = await run([], { CI: 'true' })
    expect(code, output).toBe(1)
    expect(output).toContain('FAIL  evals/triage.eval.ts > fixture triage > order consistency vs baseline')
    expect(output).toContain('baselines are never written under CI')
    // The missing snapshot names the fix, as the missing baseline does (not Vitest's bare "mismatched").
    expect(output).toMatch(/fixture triage > assertions[\s\S]*no letter-distribution snapshot for "fixture triage > assertions 1" in the test file's \.snap file, and snapshots are never written under CI \(CI is set\)[^\n]*Run the evals locally/)
    expect(output).not.toMatch(/Snapshot .* mismatched/)
    expect(existsSync(baselineFile)).toBe(false)
    expect(existsSync(snapshotFile)).toBe(false)
    expect(output).not.toContain('decisions scored') // no progress lines off a terminal
  }, E2E_TIMEOUT)

  test('a local run passes, writes baseline and snapshot, prints the report after the summary; json carries the meta', async () => {
    const json = join(out, 'report.json')
    const { code, output } = await run(['--reporter=default', '--reporter=json', `--outputFile.json=${json}`])
    expect(code, output).toBe(0)
    // Vitest's summary first, then the sceptic report with marks beside the thresholds.
    expect(output.indexOf('SCEPTIC REPORT')).toBeGreaterThan(output.indexOf('Test Files'))
    expect(output).toContain('SCEPTIC REPORT  2 suites')
    expect(output).toMatch(/balanced accuracy\s+100\.0%.*✓ ≥ 60\.0%/)
    expect(output).toMatch(/order consistency\s+100\.0%.*✓ ≥ 90\.0%/)
    expect(output).toContain('Snapshots  1 written')
    const baseline = JSON.parse(readFileSync(baselineFile, 'utf8'))
    expect(baseline).toMatchObject({ schema: 2, suite: 'fixture triage', n: 40, orderConsistency: 1 })
    expect(Object.keys(baseline.decisions)).toHaveLength(40)
    expect(baseline.decisions['q-00']).toEqual({ fingerprint: expect.stringMatching(/^[0-9a-f]{16}$/), consistent: true, strict: true })
    expect(readFileSync(snapshotFile, 'utf8')).toContain('A=0.500\nB=0.500')
    // The small set says plainly that it cannot detect the drop asked for (on its second run).
    const report = JSON.parse(readFileSync(json, 'utf8'))
    const assertions = report.testResults.flatMap((file: { assertionResults: unknown[] }) => file.assertionResults)
    const threshold = assertions.find((a: { title: string }) => a.title === 'orderConsistency ≥ 0.9')
    expect(threshold.meta.sceptic).toMatchObject({ suite: 'fixture triage', check: 'orderConsistency', bound: 0.9, value: 1 })
    expect(threshold.meta.sceptic.result.manifest.debias).toBe(baseline.debias)
  }, E2E_TIMEOUT)

  test('noise within chance passes under CI (3 decisions flip: p = 0.125); a small set reports it is underpowered', async () => {
    const { code, output } = await run([], { CI: 'true', SCEPTIC_FIXTURE_FLIPS: '3' })
    expect(code, output).toBe(0)
    expect(output).toContain('3 decisions newly inconsistent, 0 newly consistent, one-sided exact McNemar p = 0.125: no significant drop')
    expect(output).toMatch(/small set[\s\S]*too small to detect a drop of 10\.0% \(2 decisions; even all of them flipping one way gives p = 0\.25 ≥ 0\.05\)/)
  }, E2E_TIMEOUT)

  test('a regression beyond chance fails its named test; the failing threshold names the metric and the letters', async () => {
    const { code, output } = await run([], { CI: 'true', SCEPTIC_FIXTURE_FLIPS: '12' })
    expect(code, output).toBe(1)
    expect(output).toContain('FAIL  evals/triage.eval.ts > fixture triage > order consistency vs baseline')
    expect(output).toContain('12 decisions newly inconsistent, 0 newly consistent, one-sided exact McNemar p = 0.000244 < alpha 0.05')
    expect(output).toContain('FAIL  evals/triage.eval.ts > fixture triage > orderConsistency ≥ 0.9')
    expect(output).toContain('expected order consistency ≥ 0.90, measured 0.700: 28 of 40 decisions')
    expect(output).toContain('letters picked A:65% B:35%')
    expect(output).toMatch(/order consistency\s+70\.0%.*✗ < 90\.0%/)
    expect(output).toMatch(/baseline\s+✗ regressed/)
    // The letter distribution moved by 0.15 > tolerance 0.05.
    expect(output).toMatch(/fixture triage > assertions[\s\S]*Snapshot .* mismatched/)
  }, E2E_TIMEOUT)

  test('an edited decision is reported as changed and left out of the paired test; the baseline still holds', async () => {
    const { code, output } = await run([], { CI: 'true', SCEPTIC_FIXTURE_DATA: 'data/items-edited.jsonl' })
    expect(code, output).toBe(0)
    expect(output).toContain('0 decisions newly inconsistent, 0 newly consistent (39 paired; 1 changed since the baseline, not paired), one-sided exact McNemar p = 1')
    expect(output).toMatch(/baseline\s+✓ pass/)
  }, E2E_TIMEOUT)

  test('-u refreshes the baseline; a snapshot within tolerance is left byte-identical, one outside is rewritten', async () => {
    const snapshotBefore = readFileSync(snapshotFile, 'utf8')
    const noise = await run(['-u'], { SCEPTIC_FIXTURE_FLIPS: '3' })
    expect(noise.code, noise.output).toBe(0)
    expect(readFileSync(snapshotFile, 'utf8')).toBe(snapshotBefore)
    const refreshed = JSON.parse(readFileSync(baselineFile, 'utf8'))
    expect(refreshed.orderConsistency).toBe(0.925)
    expect(refreshed.decisions['q-00'].consistent).toBe(false)
    expect(noise.output).toMatch(/baseline\s+✓ updated/)

    // -u fixes snapshots and baselines, never thresholds: lower the bound for this step.
    const moved = await run(['-u'], { SCEPTIC_FIXTURE_FLIPS: '12', SCEPTIC_FIXTURE_OC: '0.5' })
    expect(moved.code, moved.output).toBe(0)
    expect(readFileSync(snapshotFile, 'utf8')).toContain('A=0.650\nB=0.350')

    // A failed assertion before the snapshot assertion: -u keeps the snapshot, byte for byte.
    const snapshotNow = readFileSync(snapshotFile, 'utf8')
    const failed = await run(['-u'], { SCEPTIC_FIXTURE_FLIPS: '12', SCEPTIC_FIXTURE_OC: '0.5', SCEPTIC_FIXTURE_FAIL_FIRST: '1' })
    expect(failed.code, failed.output).toBe(1)
    expect(failed.output).toContain('a failing first assertion')
    expect(existsSync(snapshotFile) && readFileSync(snapshotFile, 'utf8')).toBe(snapshotNow)
  }, E2E_TIMEOUT)
})

describe('sharded blob runs merged with --merge-reports', () => {
  test('shards print no report; the merged run prints every suite', async () => {
    const out = tempDir()
    const blobs = join(out, 'blobs')
    const env = { SCEPTIC_FIXTURE_OUT: out }
    const shard = (i: number) =>
      vitest(['run', '--root', PROJECT, `--shard=${i}/2`, '--reporter=blob', `--outputFile.blob=${join(blobs, `blob-${i}.json`)}`], env)
    const [one, two] = [await shard(1), await shard(2)]
    expect(one.code, one.output).toBe(0)
    expect(two.code, two.output).toBe(0)
    expect(one.output + two.output).not.toContain('SCEPTIC REPORT')
    expect(readdirSync(blobs).sort()).toEqual(['blob-1.json', 'blob-2.json'])

    // The merged run also writes the GitHub Actions job summary when it runs there.
    const summary = join(out, 'step-summary.md')
    const merged = await vitest(['run', '--root', PROJECT, `--merge-reports=${blobs}`], {
      ...env,
      GITHUB_ACTIONS: 'true',
      GITHUB_STEP_SUMMARY: summary,
    })
    expect(merged.code, merged.output).toBe(0)
    const markdown = readFileSync(summary, 'utf8')
    expect(markdown).toContain('## Sceptic report')
    expect(markdown).toContain('### ✅ fixture triage')
    expect(markdown).toContain('### ✅ small set')
    expect(merged.output).toContain('SCEPTIC REPORT  2 suites')
    expect(merged.output).toMatch(/fixture triage\s+evals\/triage\.eval\.ts/)
    expect(merged.output).toMatch(/small set\s+evals\/small\.eval\.ts/)
    expect(merged.output).toMatch(/baseline\s+✓ written/)
  }, E2E_TIMEOUT)
})

describe('broken scorers, progress and pools', () => {
  test('a throwing and a hanging scorer fail clearly; progress shows on request; the report says "not scored"', async () => {
    const { code, output } = await vitest(['run', '--root', BROKEN], { SCEPTIC_PROGRESS: '1' })
    expect(code, output).toBe(1)
    expect(output).toContain('FAIL  evals/broken.eval.ts > scorer throws')
    expect(output).toContain('ScorerError: "scorer throws": scoring failed: the scorer threw on request 0')
    expect(output).toContain('model server refused the connection')
    expect(output).toContain('ScoringTimeout: "scorer hangs": scoring timed out after 1500 ms (0 of 20 decisions scored)')
    expect(output).toMatch(/scorer hangs\s+evals\/broken\.eval\.ts\nnot scored: ScoringTimeout/)
    // Progress: decisions scored / total, rate, ETA; the raw marker lines stay hidden.
    expect(output).toMatch(/⋯ slow scorer: \d+\/20 decisions scored · [\d.]+\/s · ETA \d+s/)
    expect(output).not.toContain('[vitest-sceptic:progress]')
    // Per-request failures: counted, reported, and failing thresholds unless allowed.
    expect(output).toContain('FAIL  evals/broken.eval.ts > some requests fail > balancedAccuracy ≥ 0.4')
    expect(output).toContain('"some requests fail": 2 of 20 labelled decisions failed to score (timeout 2); maxFailureRate is 0')
    expect(output).not.toContain('FAIL  evals/broken.eval.ts > failures within the allowed rate')
    expect(output).toMatch(/failed {13}2 {3}\(timeout 2; metrics are over the 18 scored\)/)
    // Custom metrics are thresholds by name; the report shows their values.
    expect(output).not.toContain('FAIL  evals/broken.eval.ts > custom metric thresholds > meanConfidence ≥ 0.4')
    expect(output).toContain('FAIL  evals/broken.eval.ts > custom metric thresholds > hitRate ≥ 0.75')
    expect(output).toContain('expected custom metric hitRate ≥ 0.75: 0.500 is below the bound 0.75')
    // Range thresholds on the order-robustness panel are named tests; this scorer is position-blind, so both pass.
    expect(output).not.toMatch(/FAIL .*slotSensitivityGap|FAIL .*preferenceFairness/)
    expect(output).toMatch(/slot gap {9}0\.0 pp ✓ ≤ 10\.0 pp/)
    expect(output).toMatch(/fairness {9}\+0\.00 ✓ in \[-0\.05, 0\.05\]/)
    expect(output).toMatch(/meanConfidence {5}0\.900/)
  }, E2E_TIMEOUT)

  test('vm pools are refused with the reason', async () => {
    const { code, output } = await vitest(['run', '--root', BROKEN, '--pool=vmThreads'])
    expect(code).not.toBe(0)
    expect(output).toContain('pool "vmThreads" is not supported')
    expect(output).toContain('separate V8 realm')
  }, E2E_TIMEOUT)
})

describe('shared ONNX model (plugin `models`)', () => {
  test('three eval files in three forks score through one pool started in the main process', async () => {
    const out = tempDir()
    const home = tempDir()
    const { code, output } = await vitest(['run', '--root', join(FIXTURES, 'shared-model')], { SCEPTIC_FIXTURE_OUT: out, HOME: home })
    expect(code, output).toBe(0)
    // ORT's telemetry (a queue under ~/.cache/Microsoft) stays off in every process (ort-telemetry.ts);
    // Vitest 5 keeps a file of its own there (.local/share/vitest), which is not this run's to judge.
    expect(readdirSync(home, { recursive: true }).map(String).filter((path) => path.includes('Microsoft'))).toEqual([])
    const who = readFileSync(join(out, 'who.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line))
    expect(who.map((w) => w.file).sort()).toEqual([1, 2, 3])
    expect(new Set(who.map((w) => w.pid)).size).toBe(3) // three test processes...
    expect(new Set(who.map((w) => w.url)).size).toBe(1) // ...one pool
    expect(who.every((w) => w.n === 6 && /^onnx .*examples\/models\/tiny \(\d workers? × \d threads?, batch ≤ \d+[^)]*\)$/.test(w.model))).toBe(true)
    // The pool's readout reaches each file's manifest, as a local scorer's does.
    expect(who.every((w) => /^last position, \d+ letter rows \(made at startup\)$/.test(w.readout))).toBe(true)
    // The pool's packed weights were written into the model's prepackCache, and the manifests say so.
    expect(who.every((w) => /^written to .*\/packed\/[0-9a-f]{32}$/.test(w.prepacked))).toBe(true)
    // The report names the model for every suite.
    expect(output.match(/model {14}onnx .*models\/tiny/g)).toHaveLength(3)
    // The reporter's `html` option: one self-contained page per suite, with the reliability
    // diagram (records travel in suite meta).
    for (const file of [1, 2, 3]) {
      const html = readFileSync(join(out, `report.file-${file}.html`), 'utf8')
      expect(html).toMatch(/^<!doctype html>/i)
      expect(html).toContain(`Sceptic report: file ${file}`)
      expect(html).toMatch(/<title id="run0-reliability-title">Reliability diagram</)
      expect(html).toContain('data-chart="reliability"') // drawn from the records, not a placeholder
      expect(html).not.toMatch(/<script|https?:\/\//)
    }
  }, E2E_TIMEOUT)
})
