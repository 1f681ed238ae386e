/**
 * The cache shapes `config.json` declares (docs/onnx.md, "config.json"): layers, KV heads
 * and head width, as Hugging Face configs name them (top level, or under `text_config`
 * for multimodal exports). The graph's own declared shapes are the fallback; a
 * contradiction between the two is a ConfigError naming both (model-io.ts checks).
 */
import { positiveInteger, readConfigJson } from './config-json.ts'

/** Shapes from config.json; a field is absent when the config does not say. */
export interface ConfigShape {
  /** Path of the config.json they came from (for error messages). */
  readonly path: string
  /** Decoder layers (`num_hidden_layers`, `n_layer`, `num_layers`). */
  readonly layers?: number
  /** Key/value heads (`num_key_value_heads`, else the attention heads: `num_attention_heads`, `n_head`). */
  readonly kvHeads?: number
  /** Width of one head (`head_dim`, else `hidden_size / num_attention_heads`). */
  readonly headDim?: number
}

/** Read the shapes of `dir/config.json`; `undefined` without the file. Not JSON: a {@link ConfigError} naming it. */
export function readConfigShape(dir: string): ConfigShape | undefined {
  const config = readConfigJson(dir)
  if (!config) return undefined
  const scope = config.text ? { ...config.top, ...config.text } : config.top
  const int = (...keys: string[]): number | undefined => positiveInteger(scope, keys)
  const heads = int('num_attention_heads', 'n_head', 'num_heads')
  const hidden = int('hidden_size', 'n_embd', 'd_model')
  const layers = int('num_hidden_layers', 'n_layer', 'num_layers')
  const kvHeads = int('num_key_value_heads', 'num_kv_heads', 'multi_query_group_num') ?? heads
  const headDim = int('head_dim') ?? (heads !== undefined && hidden !== undefined && hidden % heads === 0 ? hidden / heads : undefined)
  return { path: config.path, ...(layers !== undefined ? { layers } : {}), ...(kvHeads !== undefined ? { kvHeads } : {}), ...(headDim !== undefined ? { headDim } : {}) }
}
