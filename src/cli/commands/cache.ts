/** `sceptic cache stats|clear`. */
import { resolve } from 'node:path'
import { cacheStats, clearCache } from '../../cache/admin.ts'
import { clearSelected } from '../../cache/clear-selected.ts'
import { resolveCache } from '../../cache/config.ts'
import { parse } from '../args.ts'
import { thousands } from '../../core/support/thousands.ts'
import type { Command } from '../command.ts'
import { UsageError } from '../usage-error.ts'
import { cacheHelp } from '../help/cache.ts'

const { usage: USAGE, options: OPTIONS } = cacheHelp

/** A string from a file, JSON-escaped without its quotes. */
const shown = (text: string) => JSON.stringify(text).slice(1, -1)

/** The cache directory named, else `SCEPTIC_CACHE_DIR`, else the default under node_modules/.cache. */
function cacheDir(positional: string | undefined): string {
  return positional !== undefined ? resolve(positional) : resolveCache(undefined).dir
}

/** `sceptic cache stats|clear`: look after the score cache (docs/cache.md). */
export const cacheCommand: Command = {
  ...cacheHelp,
  async run(argv) {
    const { values, positionals } = parse(argv, OPTIONS, USAGE)
    const [action, dirArg, ...extra] = positionals
    if (extra.length > 0 || (action !== 'stats' && action !== 'clear')) throw new UsageError(`Usage: sceptic ${USAGE}`)
    const dir = cacheDir(dirArg)
    if (action === 'stats') {
      for (const flag of ['model', 'scorer', 'older-than'] as const)
        if (values[flag] !== undefined) throw new UsageError(`--${flag} goes with clear. Usage: sceptic ${USAGE}`)
      const stats = cacheStats(dir)
      for (const warning of stats.warnings) process.stderr.write(`${warning}\n`)
      const lines = [
        `cache     ${dir}`,
        `entries   ${thousands(stats.entries)}`,
        `size      ${(stats.bytes / 1024 / 1024).toFixed(1)} MiB in ${thousands(stats.segments)} segment${stats.segments === 1 ? '' : 's'}`,
        `models    ${stats.scorers.length === 0 ? 'none' : stats.scorers.length}`,
        // Labels and kinds are read from files: shown JSON-escaped, so no control character reaches the terminal.
        ...stats.scorers.map((s) => `  ${thousands(s.entries).padStart(9)}  ${shown(s.kind).padEnd(5)} ${shown(s.label)}`),
      ]
      process.stdout.write(lines.join('\n') + '\n')
      return 0
    }
    const model = values.model as string | undefined
    const scorer = values.scorer as string | undefined
    const olderThan = values['older-than'] as string | undefined
    const days = olderThan === undefined ? undefined : Number(olderThan)
    if (days !== undefined && !(olderThan!.trim() !== '' && Number.isFinite(days) && days >= 0))
      throw new UsageError(`--older-than takes a number of days ≥ 0, got "${olderThan}"`)
    const selective = scorer !== undefined || days !== undefined
    const { removed, skippedLive } = selective
      ? clearSelected(dir, { ...(model !== undefined ? { model } : {}), ...(scorer !== undefined ? { scorer } : {}), ...(days !== undefined ? { olderThanDays: days } : {}) })
      : clearCache(dir, model !== undefined ? { model } : {})
    const live = skippedLive > 0 ? `; ${skippedLive} segment${skippedLive === 1 ? '' : 's'} of running evaluations left as they are` : ''
    const which = [
      model !== undefined ? ` of ${resolve(model)}` : '',
      scorer !== undefined ? ` of scorer ${JSON.stringify(scorer)}` : '',
      days !== undefined ? ` older than ${days} day${days === 1 ? '' : 's'}` : '',
    ].join('')
    process.stdout.write(`removed ${thousands(removed)} entr${removed === 1 ? 'y' : 'ies'}${which} from ${dir}${live}\n`)
    if (scorer !== undefined && !cacheStats(dir).scorers.some((s) => s.label === scorer) && removed === 0)
      process.stderr.write(`no scorer described as ${JSON.stringify(scorer)} in the cache; \`sceptic cache stats\` lists the descriptions\n`)
    return 0
  },
}
