/** `sceptic report`'s usage line, summary and options: what `--help` prints without loading the command. */
import type { CommandHelp } from '../command.ts'

export const reportHelp = {
  usage: 'report RUN.json [RUN2.json] --html-out FILE.html [--records RUN.records.jsonl ...] [--no-records] [--title TEXT]',
  summary: 'Write a self-contained HTML report of one run, or two side by side, from --json-out (and --records-out) files.',
  /** Every option of `sceptic report`: read by the parser, `--help` and "did you mean". */
  options: {
    'html-out': { type: 'string', short: 'o', value: 'FILE.html', description: 'the HTML file to write (required)' },
    records: { type: 'string', multiple: true, value: 'FILE', description: 'records JSONL of each run, in the order of the runs (default: X.records.jsonl beside X.json)' },
    'no-records': { type: 'boolean', description: 'do not pick up records files beside the runs' },
    title: { type: 'string', value: 'TEXT', description: 'the page title' },
  },
} satisfies CommandHelp
