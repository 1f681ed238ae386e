/** `sceptic report`: the HTML report of one or two runs. */
import { basename } from 'node:path'
import { readTextBounded } from '../../core/support/read-bounded.ts'
import type { DecisionRecord } from '../../core/result/result.ts'
import { parseRecordsJsonl, parseResultJson, renderHtmlReport, type ReportRun } from '../../report/html.ts'
import { checkRecordsMatch } from '../../core/compare/records-match.ts'
import { parse } from '../args.ts'
import type { Command } from '../command.ts'
import { UsageError } from '../usage-error.ts'
import { recordsBeside } from '../records-beside.ts'
import { planOutputs, writeOutputs } from '../../core/support/outputs.ts'
import { reportHelp } from '../help/report.ts'

const { usage: USAGE, options: OPTIONS } = reportHelp

/**
 * `sceptic report`: the self-contained HTML report of one run, or of two side by side
 * with their paired comparison.
 *
 * Records: `--records FILE` once per run, in the same order as the runs. Without it,
 * each `X.json` picks up `X.records.jsonl` beside it when that file exists (the names
 * the README's `evaluate` example writes); `--no-records` turns that off. Charts that
 * need records say so on the page when there are none.
 */
export const reportCommand: Command = {
  ...reportHelp,
  async run(argv) {
    const { values, positionals } = parse(argv, OPTIONS, USAGE)
    const output = values['html-out'] as string | undefined
    const given = (values.records as unknown as string[] | undefined) ?? []
    if (positionals.length < 1 || positionals.length > 2) throw new UsageError(`report takes one or two RUN.json files. Usage: sceptic ${USAGE}`)
    if (!output) throw new UsageError(`give the output file with --html-out FILE.html (or -o). Usage: sceptic ${USAGE}`)
    if (given.length > 0 && values['no-records']) throw new UsageError('--records and --no-records contradict each other')
    if (given.length > 0 && given.length !== positionals.length)
      throw new UsageError(
        `--records was given ${given.length} time${given.length === 1 ? '' : 's'} for ${positionals.length} run${positionals.length === 1 ? '' : 's'}: give one records file per run, in the same order`,
      )

    const runs: ReportRun[] = []
    const inputs = [...positionals, ...given, ...(values['no-records'] ? [] : (await Promise.all(positionals.map(recordsBeside))).filter((f) => f !== undefined))]
    const [planned] = await planOutputs([{ flag: '--html-out', path: output }], inputs)
    for (const [i, file] of positionals.entries()) {
      const result = parseResultJson(await readText(file), file)
      const recordsFile = given[i] ?? (values['no-records'] ? undefined : await recordsBeside(file))
      let records: DecisionRecord[] | null = null
      if (recordsFile !== undefined) {
        records = parseRecordsJsonl(await readText(recordsFile), recordsFile)
        // A records file from another run would silently redraw the charts from the wrong data.
        checkRecordsMatch(result, records, file, recordsFile)
      }
      runs.push({ result, records, label: basename(file) })
    }
    if (runs.length === 2 && runs[0]!.label === runs[1]!.label) {
      runs[0]!.label = positionals[0]
      runs[1]!.label = positionals[1]
    }
    const html = renderHtmlReport(runs, {
      ...(values.title !== undefined ? { title: values.title as string } : {}),
      generatedAt: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    })
    await writeOutputs([{ output: planned!, content: html }])
    const withRecords = runs.filter((run) => run.records).length
    process.stderr.write(
      `wrote ${output} (${runs.length} run${runs.length === 1 ? '' : 's'}, records for ${withRecords === runs.length ? (runs.length === 1 ? 'it' : 'both') : withRecords === 0 ? 'none' : 'one'})\n`,
    )
    return 0
  },
}

function readText(file: string): Promise<string> {
  return readTextBounded(file, { missing: 'no such file' })
}
