// Node 20 has no AI SDK (npm skips ai@7, which requires Node >= 22): type checking and the build's
// declarations then resolve `ai` here (scripts/ai-sdk/tsconfig.json, tsup.config.ts): loose
// stand-ins for what src/ imports. The emitted declarations name `ai`'s types, as with the real ones.
export type Experimental_DecisionQuestion = any
export type Experimental_DecisionModel = any
export declare const experimental_decide: (options: { providerOptions?: Record<string, any>; [key: string]: any }) => Promise<any>
declare class AiError extends Error {
  static isInstance(error: unknown): error is AiError
  [key: string]: any
}
export declare class APICallError extends AiError {}
export declare class Experimental_DecisionRefusalError extends AiError {}
export declare class InvalidResponseDataError extends AiError {}
export declare class JSONParseError extends AiError {}
export declare class RetryError extends AiError {}
export declare class TypeValidationError extends AiError {}
