/**
 * The strings a decision scorer scrubs from its messages. The provider holds the key,
 * not this package, so the scorer reads what it can: the model's own request headers
 * when the provider exposes them (AI SDK providers keep `config.headers`), the extra
 * headers and secrets given to the scorer, and API-key variables of the environment.
 */

/** Environment variables whose values are scrubbed (`OPENAI_API_KEY`, `ANTHROPIC_AUTH_TOKEN`, …). */
const SECRET_ENV = /(API_?KEY|TOKEN|SECRET)$/i

/** The secret values to scrub: header values (a Bearer token without its scheme too), extra secrets and env keys. */
export async function collectSecrets(model: unknown, headers: Readonly<Record<string, string>> | undefined, extra: readonly string[]): Promise<string[]> {
  const out = new Set<string>(extra)
  const add = (value: unknown) => {
    if (typeof value !== 'string') return
    out.add(value)
    const token = /^\s*(?:Bearer|Basic|Token)\s+(.+)$/i.exec(value)?.[1]
    if (token) out.add(token.trim())
  }
  for (const value of Object.values(headers ?? {})) add(value)
  for (const value of Object.values(await modelHeaders(model))) add(value)
  for (const part of urlSecrets(modelEndpoint(model))) out.add(part)
  for (const [name, value] of Object.entries(process.env)) if (SECRET_ENV.test(name)) add(value)
  return [...out]
}

/**
 * The endpoint a provider model calls, when it exposes one (AI SDK providers keep
 * `config.baseURL`, or `config.url()` that builds each request's URL); undefined otherwise.
 */
export function modelEndpoint(model: unknown): string | undefined {
  try {
    const config = (model as { config?: { baseURL?: unknown; url?: unknown } } | undefined)?.config
    if (typeof config?.baseURL === 'string') return config.baseURL
    if (typeof config?.url === 'function') {
      const url = (config.url as (o: { path: string; modelId: string }) => unknown)({ path: '', modelId: String((model as { modelId?: unknown }).modelId ?? '') })
      if (typeof url === 'string') return url
    }
  } catch {
    // A provider that builds URLs lazily: no endpoint known here.
  }
  return undefined
}

/** The credentials a URL carries: its user name, password and query values (`?key=…`), decoded. */
function urlSecrets(href: string | undefined): string[] {
  if (href === undefined) return []
  try {
    const url = new URL(href)
    const out = [url.username, url.password, ...url.searchParams.values()].filter((value) => value !== '')
    return [...out, ...out.map(decoded)]
  } catch {
    return []
  }
}

/** A percent-encoded value decoded, or as it is when it does not decode. */
function decoded(value: string): string {
  try {
    return decodeURIComponent(value)
  } catch {
    return value
  }
}

/** The model's configured request headers, or none when it keeps them elsewhere (or reading them fails). */
async function modelHeaders(model: unknown): Promise<Record<string, unknown>> {
  try {
    const config = (model as { config?: { headers?: unknown } } | undefined)?.config
    const headers = typeof config?.headers === 'function' ? await (config.headers as () => unknown)() : config?.headers
    return headers && typeof headers === 'object' ? (headers as Record<string, unknown>) : {}
  } catch {
    // A provider that cannot load its key now fails the call itself, with its own error.
    return {}
  }
}
