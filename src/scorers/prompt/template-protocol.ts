/** Messages between the chat renderer (chat-template.ts) and its process (template-child.ts). */

/** The template source and everything it renders with but the user text (the first message). */
export interface TemplateWorkerInit {
  readonly source: string
  readonly system: string | undefined
  /** Special tokens and the user's keyword arguments. */
  readonly context: Readonly<Record<string, unknown>>
}

/** Render these user texts, one prompt each. */
export interface TemplateRequest {
  readonly kind: 'render'
  readonly id: number
  readonly texts: readonly string[]
}

/** What the renderer process receives: its template once, then requests. */
export type TemplateMessage = { readonly kind: 'init'; readonly init: TemplateWorkerInit } | TemplateRequest

/** Sent once, when the process can take requests: a render's deadline counts from here, not from the fork. */
export interface TemplateReady {
  readonly kind: 'ready'
}

/** Every text rendered, or the first failure and whether the template did not compile or did not render. */
export type TemplateReply =
  | { readonly id: number; readonly rendered: string[] }
  | { readonly id: number; readonly error: string; readonly stage: 'compile' | 'render' }
