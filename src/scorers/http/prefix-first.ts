/**
 * Prefix-first scheduling (docs/scaling-out.md). Requests that share a prefix key (the
 * orderings and epochs of one decision) are sent one first; the others only once it
 * returned, when the server holds the shared prefix in its cache (vLLM automatic prefix
 * caching, SGLang RadixAttention). Meanwhile other decisions' first requests fill the
 * window. Released followers go before any new decision, so a decision finishes while
 * its prefix is still cached instead of being evicted by the next ones.
 */

/**
 * `fn` over `items` with at most `limit` calls in flight, results in input order; the
 * first item of each `keyOf` group runs alone, the rest of its group after it settled.
 * With `laneOf` (an item's endpoint), each lane holding items gets an equal part of the
 * window, so a slow endpoint cannot fill it with its own requests while another idles.
 * A rejection (a cancelled run) rejects the whole map; nothing new is started after it.
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
  // Per lane: each group's first index in input order, and released followers taken from
  // the end (pushed in reverse, so they run in input order).
  const lanes = new Map<number, { queue: number[]; head: number; released: number[]; inFlight: number }>()
  const laneAt = (index: number) => {
    const id = laneOf(index)
    let lane = lanes.get(id)
    if (!lane) lanes.set(id, (lane = { queue: [], head: 0, released: [], inFlight: 0 }))
    return lane
  }
  const followers = new Map<number, number[]>()
  const leaderOf = new Map<string, number>()
  items.forEach((item, index) => {
    const key = keyOf(item, index)
    const leader = leaderOf.get(key)
    const lane = laneAt(index)
    if (leader === undefined) {
      leaderOf.set(key, index)
      lane.queue.push(index)
    } else {
      const list = followers.get(leader)
      if (list) list.push(index)
      else followers.set(leader, [index])
    }
  })
  const laneLimit = Math.max(1, Math.ceil(limit / lanes.size))
  const all = [...lanes.values()]
  /** The next index to start: released followers before any new group, the lowest index first, within the lanes' shares. */
  const next = (): { index: number; lane: (typeof all)[number] } | undefined => {
    let best: { index: number; lane: (typeof all)[number]; follower: boolean } | undefined
    for (const lane of all) {
      if (lane.inFlight >= laneLimit) continue
      const follower = lane.released.length > 0
      const index = follower ? lane.released.at(-1)! : lane.head < lane.queue.length ? lane.queue[lane.head]! : undefined
      if (index === undefined) continue
      if (!best || (follower && !best.follower) || (follower === best.follower && index < best.index)) best = { index, lane, follower }
    }
    if (!best) return undefined
    if (best.follower) best.lane.released.pop()
    else best.lane.head++
    return best
  }
  let inFlight = 0
  let done = 0
  let failed = false
  return new Promise<R[]>((resolve, reject) => {
    const pump = () => {
      while (!failed && inFlight < limit) {
        const started = next()
        if (started === undefined) return
        const { index, lane } = started
        inFlight++
        lane.inFlight++
        fn(items[index]!, index).then(
          (result) => {
            results[index] = result
            inFlight--
            lane.inFlight--
            done++
            const released = followers.get(index)
            if (released) {
              followers.delete(index)
              for (let i = released.length - 1; i >= 0; i--) lanes.get(laneOf(released[i]!))!.released.push(released[i]!)
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
