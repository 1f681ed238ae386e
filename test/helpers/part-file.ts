// A part file of an empty one-shard run: the header line tests put rows after.
import { partFileText } from '../../src/core/shards/part-file.ts'

/** The header line of a part file (shard 1/1, no rows), with its trailing newline. */
export const EMPTY_PART_HEADER = partFileText({
  shard: { index: 1, count: 1 },
  fingerprint: 'f',
  rows: 0,
  settings: { debias: 'none', seed: 0, epochs: 1, reducer: 'mean', average: 'probability', storePrompts: false },
  scorer: 's',
  scorerId: 's-id',
  manifest: {},
  cache: undefined,
  records: 0,
  decisions: [],
  answers: [],
})
