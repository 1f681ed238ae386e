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
 * A rejection (a cancelled run) rejects the whole map; nothing new is started after it.
 */
export function mapPrefixFirst<T, R>(
  items: readonly T[],
  keyOf: (item: T) => string,
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length)
  if (items.length === 0) return Promise.resolve(results)
  // Group indices by key; the queue holds each group's first index, in input order.
  const followers = new Map<number, number[]>()
  const leaderOf = new Map<string, number>()
  const queue: number[] = []
  items.forEach((item, index) => {
    const key = keyOf(item)
    const leader = leaderOf.get(key)
    if (leader === undefined) {
      leaderOf.set(key, index)
      queue.push(index)
    } else {
      const list = followers.get(leader)
      if (list) list.push(index)
      else followers.set(leader, [index])
    }
  })
  // Released followers, taken from the end (pushed in reverse, so they run in input order).
  const released: number[] = []
  let head = 0
  let inFlight = 0
  let done = 0
  let failed = false
  return new Promise<R[]>((resolve, reject) => {
    const pump = () => {
      while (!failed && inFlight < limit) {
        const index = released.length > 0 ? released.pop()! : head < queue.length ? queue[head++]! : undefined
        if (index === undefined) return
        inFlight++
        fn(items[index]!, index).then(
          (result) => {
            results[index] = result
            inFlight--
            done++
            const next = followers.get(index)
            if (next) {
              followers.delete(index)
              for (let i = next.length - 1; i >= 0; i--) released.push(next[i]!)
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
