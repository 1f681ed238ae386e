/**
 * The Qwen2 layout of the fixture decoder (`architecture: 'qwen2'`), as Hugging Face's
 * Qwen2ForCausalLM computes it: RMSNorm, rotary position embeddings (rotate-half, base
 * `ropeTheta`) on q and k before the KV cache, grouped-query attention, biases on the q/k/v
 * projections only, a SwiGLU MLP, no position embedding, and the LM head tied to the token
 * embedding (stored once: the head reads `Transpose(embed)`). Inputs and outputs are the
 * GPT-2 layout's (Optimum names); {@link qwen2Config} is the matching config.json.
 */
import type { onnx as OnnxNamespace } from 'onnx-proto'
import type { DecoderOptions } from './decoder.ts'
import { Attention, attentionConstants, decoderModel, decoderShape, DT, graphBuilder, logitsHead, maskBias, sequencePositions, type GraphBuilder } from './graph-builder.ts'

export const QWEN2_DEFAULTS = { ropeTheta: 1e6, rmsEps: 1e-6 } as const

/** RoPE inverse frequencies, HF's `1 / theta^(2i / dh)` for i < dh/2. */
export function ropeInverseFrequencies(dh: number, theta: number): Float32Array {
  return Float32Array.from({ length: dh / 2 }, (_, i) => 1 / theta ** ((2 * i) / dh))
}

export function buildQwen2(options: DecoderOptions): OnnxNamespace.ModelProto {
  const shape = decoderShape(options)
  const { D, L, H, KVH, V, FF, dh, inputIds, logitsName } = shape
  const theta = options.ropeTheta ?? QWEN2_DEFAULTS.ropeTheta
  const eps = options.rmsEps ?? QWEN2_DEFAULTS.rmsEps
  const KD = KVH * dh
  const b = graphBuilder(options.seed ?? 0, options.weights)
  const { normal, initF, op } = b
  const inStd = 1 / Math.sqrt(D)
  const outStd = (D >= 256 ? 0.02 : 0.1) / Math.sqrt(2 * L)
  const qkStd = inStd * (options.attentionSharpness ?? 1)
  const gain = () => 1 + normal(0.05)
  // Tied head: logits = g · rms(h) · embed[v], so embeddings of std 1/√D give logits of std ≈ the final gain.
  initF('model.embed_tokens.weight', [V, D], () => normal(inStd))
  const p = (l: number, name: string) => `model.layers.${l}.${name}`
  for (let l = 0; l < L; l++) {
    initF(p(l, 'input_layernorm.weight'), [D], gain)
    for (const [proj, out, std] of [['q_proj', D, qkStd], ['k_proj', KD, qkStd], ['v_proj', KD, inStd]] as const) {
      initF(p(l, `self_attn.${proj}.weight`), [D, out], () => normal(std))
      initF(p(l, `self_attn.${proj}.bias`), [out], () => normal(0.02))
    }
    initF(p(l, 'self_attn.o_proj.weight'), [D, D], () => normal(outStd))
    initF(p(l, 'post_attention_layernorm.weight'), [D], gain)
    initF(p(l, 'mlp.gate_proj.weight'), [D, FF], () => normal(inStd))
    initF(p(l, 'mlp.up_proj.weight'), [D, FF], () => normal(inStd))
    initF(p(l, 'mlp.down_proj.weight'), [FF, D], () => normal(outStd))
  }
  initF('model.norm.weight', [D], () => options.headScale ?? 1)
  const inverse = ropeInverseFrequencies(dh, theta)
  initF('rope.inv_freq', [dh / 2], (i) => inverse[i]!)

  const c = attentionConstants(b, shape, false)
  const cEps = b.constF('c_eps', eps)
  const cLast = b.initI('c_last', [-1])
  const cHalves = b.initI('c_halves', [dh / 2, dh / 2])
  const rms = (x: string, weight: string): string => {
    const meanSquare = op('ReduceMean', [op('Mul', [x, x])], { axes: [-1], keepdims: 1 })
    return op('Mul', [op('Div', [x, op('Sqrt', [op('Add', [meanSquare, cEps])])]), weight])
  }

  const { S, T, positions } = sequencePositions(b, c, inputIds, shape.withPositionIds)
  let h = op('Gather', ['model.embed_tokens.weight', inputIds])
  const rope = rotary(b, positions, c.c1, cLast, cHalves)
  const attention = new Attention(b, c, shape, maskBias(b, c, S, T))
  const linear = (x: string, name: string, bias = false): string => {
    const y = op('MatMul', [x, `${name}.weight`])
    return bias ? op('Add', [y, `${name}.bias`]) : y
  }
  for (let l = 0; l < L; l++) {
    const x = rms(h, p(l, 'input_layernorm.weight'))
    const [q, k, v] = ['q_proj', 'k_proj', 'v_proj'].map((proj) => linear(x, p(l, `self_attn.${proj}`), true)) as [string, string, string]
    h = op('Add', [h, linear(attention.layer(l, q, k, v, rope), p(l, 'self_attn.o_proj'))])
    const y = rms(h, p(l, 'post_attention_layernorm.weight'))
    const gate = linear(y, p(l, 'mlp.gate_proj'))
    const silu = op('Mul', [gate, op('Sigmoid', [gate])])
    h = op('Add', [h, linear(op('Mul', [silu, linear(y, p(l, 'mlp.up_proj'))]), p(l, 'mlp.down_proj'))])
  }
  const final = rms(h, 'model.norm.weight')
  const tied = op('Transpose', ['model.embed_tokens.weight'], { perm: [1, 0] })
  logitsHead(b, options, op('MatMul', [final, tied], {}, options.logitBias && Object.keys(options.logitBias).length > 0 ? undefined : logitsName), V, logitsName)
  return decoderModel(b, shape)
}

/** `rope(heads)` for `[B, heads, S, dh]`: x·cos + rotate_half(x)·sin, angles = position × inv_freq, both halves alike. */
function rotary(b: GraphBuilder, positions: string, c1: string, cLast: string, cHalves: string): (heads: string) => string {
  const { op, node } = b
  const angles = op('Mul', [op('Unsqueeze', [op('Cast', [positions], { to: DT.FLOAT }), cLast]), 'rope.inv_freq'])
  const full = op('Concat', [angles, angles], { axis: -1 })
  const cos = op('Unsqueeze', [op('Cos', [full]), c1])
  const sin = op('Unsqueeze', [op('Sin', [full]), c1])
  return (x) => {
    const [x1, x2] = node('Split', [x, cHalves], { axis: -1 }, [`${x}_x1`, `${x}_x2`]) as [string, string]
    const rotated = op('Concat', [op('Neg', [x2]), x1], { axis: -1 })
    return op('Add', [op('Mul', [x, cos]), op('Mul', [rotated, sin])])
  }
}

/** The config.json of a Qwen2 fixture, with Hugging Face's field names (transformers.js sizes the empty cache from it). */
export function qwen2Config(options: DecoderOptions & { vocab: number }): Record<string, unknown> {
  const { D, L, H, KVH, FF, dh } = decoderShape(options)
  return {
    architectures: ['Qwen2ForCausalLM'],
    model_type: 'qwen2',
    hidden_size: D,
    num_hidden_layers: L,
    num_attention_heads: H,
    num_key_value_heads: KVH,
    head_dim: dh,
    intermediate_size: FF,
    hidden_act: 'silu',
    rms_norm_eps: options.rmsEps ?? QWEN2_DEFAULTS.rmsEps,
    rope_theta: options.ropeTheta ?? QWEN2_DEFAULTS.ropeTheta,
    tie_word_embeddings: true,
    max_position_embeddings: options.maxPositions ?? 32768,
    vocab_size: options.vocab,
    torch_dtype: 'float32',
  }
}
