/** `sceptic merge`: the parts of a sharded run, replayed into one result (docs/scaling-out.md). */
import { DataError } from '../../core/support/errors.ts'
import { readTextBounded } from '../../core/support/read-bounded.ts'
import { colorEnabled, render } from '../../report/terminal.ts'
import { recordsToJsonl, resultToJson } from '../../core/result/result.ts'
import { parsePartFile, reassemble } from '../../core/shards/part-file.ts'
import { evaluateReassembled } from '../../core/shards/replay.ts'
import { parse } from '../args.ts'
import type { Command } from '../command.ts'
import { UsageError } from '../usage-error.ts'
import { planOutputs, writeOutputs } from '../../core/support/outputs.ts'
import { partFileOf } from '../shard-run.ts'
import { gateExitCode, parseMaxFailureRate, parseThresholdFlags } from '../thresholds.ts'
import { mergeHelp } from '../help/merge.ts'

const { usage: USAGE, options: OPTIONS } = mergeHelp

/**
 * `sceptic merge`: the run that the parts of `sceptic evaluate --shard i/n` make
 * together, recomputed from their union (every metric, interval, panel figure and
 * the manifest), equal to an unsharded run but for `started` and `seconds`.
 */
export const mergeCommand: Command = {
  ...mergeHelp,
  async run(argv) {
    const { values, positionals } = parse(argv, OPTIONS, USAGE)
    if (positionals.length === 0) throw new UsageError(`merge takes the records files of every part. Usage: sceptic ${USAGE}`)
    const thresholds = parseThresholdFlags(values.threshold as string[] | undefined)
    const maxFailureRate = parseMaxFailureRate(values['max-failure-rate'] as string | undefined)
    const gated = Object.keys(thresholds).length > 0 || values['max-failure-rate'] !== undefined
    const parts = positionals.map(partFileOf)
    const outputs = await planOutputs(
      [
        { flag: '--json-out', path: values['json-out'] as string | undefined },
        { flag: '--records-out', path: values['records-out'] as string | undefined },
      ],
      [...positionals, ...parts],
    )
    const parsed = []
    for (const [i, records] of positionals.entries()) {
      const part = parsePartFile(await readText(parts[i]!, `the part file of ${records} (written beside it by evaluate --shard)`), parts[i]!)
      const lines = (await readText(records, 'no such file')).split('\n').filter((line) => line.trim() !== '').length
      if (lines !== part.header.records)
        throw new DataError(`has ${lines} records but its part file ${parts[i]} says ${part.header.records}: they are not from the same run`, { file: records })
      parsed.push(part)
    }
    const run = reassemble(parsed)
    const result = await evaluateReassembled(run, { onWarning: (message) => process.stderr.write(`${message}\n`) })
    process.stdout.write(render(result, { color: colorEnabled(process.stdout) }) + '\n')
    await writeOutputs(
      outputs.map((output) => ({
        output,
        content: output.flag === '--json-out' ? JSON.stringify(resultToJson(result), null, 2) + '\n' : recordsToJsonl(result.records),
      })),
    )
    process.stderr.write(`merged ${run.shards} part${run.shards === 1 ? '' : 's'}: ${result.n} decisions\n`)
    return gateExitCode(positionals.join(', '), result, { thresholds, maxFailureRate, gated })
  },
}

function readText(file: string, missing: string): Promise<string> {
  return readTextBounded(file, { missing })
}
