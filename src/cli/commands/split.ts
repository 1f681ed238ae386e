/** `sceptic split DATA`: a group-aware train/eval split. */
import { groupOf, groupSplit } from '../../core/decisions/split.ts'
import { loadDecisionLines } from '../../core/decisions/load.ts'
import type { Decision } from '../../core/decisions/schema.ts'
import { DataError } from '../../core/support/errors.ts'
import { integer, parse } from '../args.ts'
import type { Command } from '../command.ts'
import { UsageError } from '../usage-error.ts'
import { planOutputs, writeOutputs } from '../../core/support/outputs.ts'
import { splitHelp } from '../help/split.ts'

const { usage: USAGE, options: OPTIONS } = splitHelp

/**
 * `sceptic split DATA`: a group-aware train/eval split with `groupSplit` (a group is
 * the `group_id`, else the state text), so no group lands on both sides. Each line is
 * validated and written back verbatim (no re-serialisation, unknown keys kept);
 * prints the counts of decisions and groups on each side.
 */
export const splitCommand: Command = {
  ...splitHelp,
  async run(argv) {
    const { values: raw, positionals } = parse(argv, OPTIONS, USAGE)
    const values = raw as Record<string, string | undefined>
    if (positionals.length !== 1) throw new UsageError(`split takes one DATA file. Usage: sceptic ${USAGE}`)
    const data = positionals[0]!
    const fractionText = values['eval-fraction']
    if (fractionText === undefined) throw new UsageError(`--eval-fraction is required. Usage: sceptic ${USAGE}`)
    const evalFraction = Number(fractionText)
    if (!(evalFraction > 0 && evalFraction < 1))
      throw new UsageError(`--eval-fraction must be a number between 0 and 1 (exclusive), got "${fractionText}"`)
    const outTrain = values['train-out']
    const outEval = values['eval-out']
    if (outTrain === undefined || outEval === undefined)
      throw new UsageError(`--train-out and --eval-out are both required. Usage: sceptic ${USAGE}`)
    const seed = integer(values.seed, 'seed') ?? 0
    const [trainOut, evalOut] = await planOutputs(
      [
        { flag: '--train-out', path: outTrain },
        { flag: '--eval-out', path: outEval },
      ],
      [data],
    )

    const { decisions, lines } = await readLines(data)
    const groupCount = new Set(decisions.map(groupOf)).size
    if (groupCount < 2)
      throw new DataError(`has ${groupCount} group${groupCount === 1 ? '' : 's'}; a split with no group on both sides needs at least 2`, {
        file: data,
      })
    const { train, eval: evalSide } = groupSplit(decisions, { evalFraction, seed })
    const textOf = (side: readonly Decision[]) => side.map((d) => lines.get(d)! + '\n').join('')
    await writeOutputs([
      { output: trainOut!, content: textOf(train) },
      { output: evalOut!, content: textOf(evalSide) },
    ])
    const groups = (side: readonly Decision[]) => new Set(side.map(groupOf)).size
    process.stdout.write(
      `train  ${String(train.length).padStart(6)} decisions  ${String(groups(train)).padStart(5)} groups  → ${outTrain}\n` +
        `eval   ${String(evalSide.length).padStart(6)} decisions  ${String(groups(evalSide)).padStart(5)} groups  → ${outEval}\n` +
        `(seed ${seed}, eval fraction ${evalFraction} of ${groupCount} groups; a group is the group_id, else the state text)\n`,
    )
    return 0
  },
}

/** Validate each line (with `loadDecisionLines`, the loader's own rules) and remember its original text. */
async function readLines(path: string): Promise<{ decisions: Decision[]; lines: Map<Decision, string> }> {
  const entries = await loadDecisionLines(path)
  if (entries.length === 0) throw new DataError('holds no decisions', { file: path })
  return { decisions: entries.map((entry) => entry.decision), lines: new Map(entries.map((entry) => [entry.decision, entry.text])) }
}
