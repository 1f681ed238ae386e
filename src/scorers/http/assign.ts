/**
 * Load-aware affinity for several endpoints: consistent hashing with bounded loads
 * (Mirrokni, Thorup & Zadimoghaddam, "Consistent Hashing with Bounded Loads", SODA 2018).
 * Each decision (all requests sharing an affinity key) goes, whole, to the first endpoint in
 * its rendezvous rank whose load stays within (1 + ε) times the mean; so every replica gets
 * its share even when the hash splits a small set unevenly, and a decision keeps its
 * rendezvous endpoint (and the prefix that endpoint holds in cache) whenever loads allow.
 */
import { rank, type Endpoint } from './endpoints.ts'

/**
 * ε: an endpoint carries at most (1 + ε) times the mean load (in requests), one decision's
 * rounding aside. 0: an exact share, since one decision more on one replica of two (21/19 of
 * 40) already costs 5% of the speed-up; reruns still keep every endpoint (the rule is deterministic).
 */
export const LOAD_SLACK = 0

/**
 * Assign each key of `groups` (key → requests, in the order to place them) to one endpoint
 * and return, per key, the endpoints to try: the assigned one first, then the rest in
 * rendezvous order (failover). `load` holds the requests assigned to each endpoint and
 * not yet answered, and is updated in place (the caller takes each answered one off); endpoints out of service at `now` take no new decision (all of
 * them, when every one is out). Deterministic: the same loads, groups and health give the
 * same assignment.
 */
export function assignGroups(
  endpoints: readonly Endpoint[],
  load: Map<Endpoint, number>,
  groups: ReadonlyMap<string, number>,
  now: number,
  slack: number = LOAD_SLACK,
): Map<string, Endpoint[]> {
  const live = endpoints.filter((endpoint) => endpoint.downUntil <= now)
  const pool = new Set(live.length > 0 ? live : endpoints)
  let total = 0
  for (const endpoint of pool) total += load.get(endpoint) ?? 0
  for (const weight of groups.values()) total += weight
  const bound = ((1 + slack) * total) / pool.size
  const routes = new Map<string, Endpoint[]>()
  for (const [key, weight] of groups) {
    const ranked = rank(endpoints, key)
    let chosen: Endpoint | undefined
    let least: Endpoint | undefined
    for (const endpoint of ranked) {
      if (!pool.has(endpoint)) continue
      const carried = load.get(endpoint) ?? 0
      if (carried + weight <= bound) {
        chosen = endpoint
        break
      }
      if (least === undefined || carried < (load.get(least) ?? 0)) least = endpoint
    }
    // No endpoint has room for the whole decision (rounding): the least loaded, first in rank among ties.
    chosen ??= least!
    load.set(chosen, (load.get(chosen) ?? 0) + weight)
    routes.set(key, [chosen, ...ranked.filter((endpoint) => endpoint !== chosen)])
  }
  return routes
}
