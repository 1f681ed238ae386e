/**
 * Why a stored record (a baseline file, a letter-distribution snapshot) is missing and
 * not written now, and how to fix it: one wording for both, since the fix is the same.
 */

/** The reason and the fix, for a record of `kind` that this run will not write. */
export function notWrittenHint(kind: 'baseline' | 'snapshot', ci: boolean, plural = kind === 'baseline' ? 'baselines' : 'snapshots'): string {
  return ci
    ? `${plural} are never written under CI (CI is set), not even with \`vitest -u\`: a ${kind} written by the run it gates checks nothing. ` +
        'Run the evals locally (with `vitest -u` to refresh), review the file and commit it.'
    : `this run does not write ${plural} (update mode none, e.g. \`--update=none\`). Run the evals without it (or with \`vitest -u\`) to record it, review it and commit it.`
}
