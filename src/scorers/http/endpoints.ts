/**
 * Several endpoints of one model (docs/scaling-out.md): each decision ranks them by
 * rendezvous hashing (Thaler & Ravishankar, "Using name-based mappings to increase hit
 * rates", IEEE/ACM ToN 1998); assign.ts picks the first in rank within the load bound, so
 * every request of a decision reaches the replica that holds its prefix in cache; an
 * endpoint that fails is taken out for a back-off period and its decisions go to the next.
 */
import { createHash } from 'node:crypto'
import type { ScoreRequest } from '../../core/scorer/contract.ts'

/** Requests sent to one endpoint, as the manifest reports them (`manifest.endpoints[url]`). */
export interface EndpointCounts {
  /** HTTP attempts sent to it, retries included. */
  requests: number
  /** Attempts that failed there (connection error, timeout, 429 or 5xx). */
  failures: number
  /** Attempts it took over from a higher-ranked endpoint that was out. */
  failovers: number
}

/** One endpoint: where to post, its credential-free label, its health. */
export interface Endpoint {
  /** Full URL posted to (may carry a query; never shown). */
  readonly url: URL
  /** The URL without user, password or query: the manifest key and the text of messages. */
  readonly label: string
  /** Counters since the scorer was created. */
  readonly counts: EndpointCounts
  /** Epoch ms until which it is out (0: in service). */
  downUntil: number
  /** Consecutive failed attempts (the back-off doubles with each, up to the cap). */
  strikes: number
}

/** Longest time an endpoint is kept out, in ms. */
export const MAX_ENDPOINT_BACKOFF_MS = 60_000

/**
 * The affinity key of a request: its decision's state, criterion key, question and
 * option ids in a fixed (sorted) order, so every ordering and epoch of a decision,
 * and a criterion's content-free requests, share it.
 */
export function affinityKey(request: ScoreRequest): string {
  const { criterion } = request
  const ids = criterion.options.map((o) => o.id).sort()
  return JSON.stringify([request.state, criterion.key, criterion.question ?? null, ids])
}

/** Rendezvous weight of (key, endpoint): the first 48 bits of sha256(label, key). */
function weight(key: string, label: string): number {
  return createHash('sha256').update(label).update('\0').update(key).digest().readUIntBE(0, 6)
}

/** The endpoints in rendezvous order for `key`: highest weight first (ties by label). */
export function rank(endpoints: readonly Endpoint[], key: string): Endpoint[] {
  if (endpoints.length === 1) return [endpoints[0]!]
  return endpoints
    .map((endpoint) => ({ endpoint, w: weight(key, endpoint.label) }))
    .sort((a, b) => b.w - a.w || (a.endpoint.label < b.endpoint.label ? -1 : 1))
    .map(({ endpoint }) => endpoint)
}

/**
 * Where the next attempt of a request goes: the first endpoint in its rank that is in
 * service; when all are out, the one that comes back first. `failover` is true when a
 * higher-ranked endpoint was skipped.
 */
export function choose(ranked: readonly Endpoint[], now: number): { endpoint: Endpoint; failover: boolean } {
  const live = ranked.find((endpoint) => endpoint.downUntil <= now)
  if (live) return { endpoint: live, failover: live !== ranked[0] }
  const soonest = ranked.reduce((a, b) => (b.downUntil < a.downUntil ? b : a))
  return { endpoint: soonest, failover: soonest !== ranked[0] }
}

/** Record an attempt's outcome: a failure takes the endpoint out for `backoffMs · 2^(strikes−1)` (capped) unless it is out already; a success restores it. */
export function settle(endpoint: Endpoint, ok: boolean, backoffMs: number, now: number, takeOut: boolean): void {
  if (ok) {
    endpoint.strikes = 0
    endpoint.downUntil = 0
    return
  }
  endpoint.counts.failures++
  // Requests in flight when it was taken out fail after: the same outage, not another strike.
  if (!takeOut || endpoint.downUntil > now) return
  endpoint.strikes++
  endpoint.downUntil = now + Math.min(MAX_ENDPOINT_BACKOFF_MS, backoffMs * 2 ** (endpoint.strikes - 1))
}

/** The manifest entry: counts per endpoint label, in the order the endpoints were given. */
export function endpointCounts(endpoints: readonly Endpoint[]): Record<string, EndpointCounts> {
  const out: Record<string, EndpointCounts> = {}
  for (const endpoint of endpoints)
    Object.defineProperty(out, endpoint.label, { value: { ...endpoint.counts }, enumerable: true, writable: true, configurable: true })
  return out
}
