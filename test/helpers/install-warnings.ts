// The warning lines package managers print, for the tests that install without a warning.

/** Lines without colours. */
const plainLines = (output: string): string[] => output.replace(/\x1b\[[0-9;]*m/g, '').split('\n')

/** npm's warning lines in some output (`npm warn …`, in any case). */
export function npmWarnings(output: string): string[] {
  return plainLines(output).filter((line) => /^npm (warn|WARN)\b/.test(line))
}

/**
 * pnpm's warning lines (`[WARN] …` in pnpm 12, ` WARN  …` in older ones, either after `<project> |`
 * in a workspace), and npm's, which `npx pnpm@…` may print while it fetches pnpm.
 */
export function pnpmWarnings(output: string): string[] {
  return plainLines(output).filter((line) => /^(\S+\s+\|)?\s*(\[WARN\]|WARN\b)/.test(line) || /^npm (warn|WARN)\b/.test(line))
}
