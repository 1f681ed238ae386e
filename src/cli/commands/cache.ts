/** `sceptic cache stats|clear`. */
import { resolve } from 'node:path'
import { cacheStats, clearCache } from '../../cache/admin.ts'
import { resolveCache } from '../../cache/config.ts'
import { parse, type OptionTable } from '../args.ts'
import type { Command } from '../command.ts'
import { UsageError } from '../usage-error.ts'

const USAGE = 'cache (stats [DIR] | clear [DIR] [--model DIR])'

/** Thousands separated, locale-independent. */
const n = (value: number) => value.toLocaleString('en-US')

/** A string from a file, JSON-escaped without its quotes. */
const shown = (text: string) => JSON.stringify(text).slice(1, -1)

/** The cache directory named, else `SCEPTIC_CACHE_DIR`, else the default under node_modules/.cache. */
function cacheDir(positional: string | undefined): string {
  return positional !== undefined ? resolve(positional) : resolveCache(undefined).dir
}

/** Every option of `sceptic cache`: read by the parser, `--help` and "did you mean". */
const OPTIONS = {
  model: { type: 'string', value: 'DIR', description: 'with clear: remove only the entries of this model directory' },
} satisfies OptionTable

/** `sceptic cache stats|clear`: look after the score cache (docs/cache.md). */
export const cacheCommand: Command = {
  usage: USAGE,
  options: OPTIONS,
  summary: 'Show what the score cache holds (entries, size, models), or clear it, whole or for one model.',
  async run(argv) {
    const { values, positionals } = parse(argv, OPTIONS, USAGE)
    const [action, dirArg, ...extra] = positionals
    if (extra.length > 0 || (action !== 'stats' && action !== 'clear')) throw new UsageError(`Usage: sceptic ${USAGE}`)
    const dir = cacheDir(dirArg)
    if (action === 'stats') {
      if (values.model !== undefined) throw new UsageError(`--model goes with clear. Usage: sceptic ${USAGE}`)
      const stats = cacheStats(dir)
      for (const warning of stats.warnings) process.stderr.write(`${warning}\n`)
      const lines = [
        `cache     ${dir}`,
        `entries   ${n(stats.entries)}`,
        `size      ${(stats.bytes / 1024 / 1024).toFixed(1)} MiB in ${n(stats.segments)} segment${stats.segments === 1 ? '' : 's'}`,
        `models    ${stats.scorers.length === 0 ? 'none' : stats.scorers.length}`,
        // Labels and kinds are read from files: shown JSON-escaped, so no control character reaches the terminal.
        ...stats.scorers.map((s) => `  ${n(s.entries).padStart(9)}  ${shown(s.kind).padEnd(5)} ${shown(s.label)}`),
      ]
      process.stdout.write(lines.join('\n') + '\n')
      return 0
    }
    const model = values.model as string | undefined
    const { removed, skippedLive } = clearCache(dir, model !== undefined ? { model } : {})
    const live = skippedLive > 0 ? `; ${skippedLive} segment${skippedLive === 1 ? '' : 's'} of running evaluations left as they are` : ''
    process.stdout.write(`removed ${n(removed)} entr${removed === 1 ? 'y' : 'ies'}${model !== undefined ? ` of ${resolve(model)}` : ''} from ${dir}${live}\n`)
    return 0
  },
}
