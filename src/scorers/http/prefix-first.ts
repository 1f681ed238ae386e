/**
 * Prefix-first scheduling (docs/scaling-out.md). Requests that share a prefix key (the
 * orderings and epochs of one decision) are sent one first; the others only once it
 * returned, when the server holds the shared prefix in its cache (vLLM automatic prefix
 * caching, SGLang RadixAttention). Each endpoint keeps at most `limit` decisions open
 * (first request sent, some other not yet): so their prefixes stay cached until they are
 * done, and a new decision's first request, the long one, starts as soon as one closes
 * instead of waiting for every released request (the last decisions then do not run
 * alone while slots idle).
 */

/** One endpoint's share: its groups' first indices in input order, released followers, counts. */
interface Lane {
  queue: number[]
  head: number
  /** Released followers, oldest release first (a decision opened long ago is not left to age out of the cache). */
  released: number[]
  taken: number
  inFlight: number
  /** Groups whose first item started and some other item did not. */
  open: number
}

/**
 * `fn` over `items` with at most `limit` calls in flight per lane, results in input order;
 * the first item of each `keyOf` group runs alone, the rest of its group after it settled.
 * With `laneOf` (an item's endpoint; a group runs in its first item's lane), each lane has
 * a window of its own: a replica added adds its window, and a slow one cannot take
 * another's. A rejection (a cancelled run) rejects the whole map; nothing new starts after it.
 */
export function mapPrefixFirst<T, R>(
  items: readonly T[],
  keyOf: (item: T, index: number) => string,
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
  laneOf: (index: number) => number = () => 0,
): Promise<R[]> {
  const results = new Array<R>(items.length)
  if (items.length === 0) return Promise.resolve(results)
  const window = Math.max(1, limit)
  const lanes = new Map<number, Lane>()
  const laneOfIndex: Lane[] = new Array(items.length)
  const followers = new Map<number, number[]>()
  /** Per group (by its first index): followers not yet started. */
  const unstarted = new Map<number, number>()
  const leaderOf = new Map<string, number>()
  items.forEach((item, index) => {
    const key = keyOf(item, index)
    const leader = leaderOf.get(key)
    if (leader === undefined) {
      const id = laneOf(index)
      let lane = lanes.get(id)
      if (!lane) lanes.set(id, (lane = { queue: [], head: 0, released: [], taken: 0, inFlight: 0, open: 0 }))
      leaderOf.set(key, index)
      lane.queue.push(index)
      laneOfIndex[index] = lane
    } else {
      laneOfIndex[index] = laneOfIndex[leader]!
      const list = followers.get(leader)
      if (list) list.push(index)
      else followers.set(leader, [index])
      unstarted.set(leader, (unstarted.get(leader) ?? 0) + 1)
    }
  })
  const leaderOfIndex = new Map<number, number>()
  for (const [leader, list] of followers) for (const index of list) leaderOfIndex.set(index, leader)
  /** The lane's next index: a new group while fewer than `window` are open, else a released follower. */
  const next = (lane: Lane): number | undefined => {
    if (lane.open < window && lane.head < lane.queue.length) {
      const index = lane.queue[lane.head++]!
      if (unstarted.has(index)) lane.open++
      return index
    }
    if (lane.taken === lane.released.length) return undefined
    const index = lane.released[lane.taken++]!
    const leader = leaderOfIndex.get(index)!
    const left = unstarted.get(leader)! - 1
    unstarted.set(leader, left)
    if (left === 0) lane.open--
    return index
  }
  let done = 0
  let failed = false
  return new Promise<R[]>((resolve, reject) => {
    const pump = () => {
      for (const lane of lanes.values())
        while (!failed && lane.inFlight < window) {
          const index = next(lane)
          if (index === undefined) break
          lane.inFlight++
          fn(items[index]!, index).then(
            (result) => {
              results[index] = result
              lane.inFlight--
              done++
              const released = followers.get(index)
              if (released) {
                followers.delete(index)
                for (const follower of released) lane.released.push(follower)
              }
              if (done === items.length) resolve(results)
              else pump()
            },
            (error: unknown) => {
              failed = true
              reject(error)
            },
          )
        }
    }
    pump()
  })
}
