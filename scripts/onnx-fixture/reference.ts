/**
 * Hugging Face's Qwen2ForCausalLM written out in plain JS, in float64: RMSNorm, rotate-half RoPE,
 * GQA attention with q/k/v biases, SwiGLU, tied head. An engine-free reference for the fixture and
 * trained decoders (weights by their initializer names, Linear weights `[in, out]`).
 */

/** The Qwen2 shape the forward pass needs. */
export interface Qwen2Shape {
  hidden: number
  layers: number
  heads: number
  kvHeads: number
  ffn: number
  /** RoPE base. */
  theta: number
  /** RMSNorm epsilon. */
  eps: number
}

/**
 * Logits of one sequence: at every position, or with `lastOnly` at the last one only (a row per
 * position returned). `weight(name)` gives an initializer's values.
 */
export function qwen2Forward(weight: (name: string) => Float32Array, o: Qwen2Shape, ids: readonly number[], positions: readonly number[], lastOnly = false): number[][] {
  const { hidden: D, heads: H, kvHeads: KVH, ffn: FF } = o
  const dh = D / H
  const embed = weight('model.embed_tokens.weight')
  const V = embed.length / D
  const linear = (x: number[], name: string, out: number, bias?: string) => {
    const w = weight(name)
    const b = bias ? weight(bias) : undefined
    const y = Array.from({ length: out }, (_, j) => (b ? b[j]! : 0))
    for (let i = 0; i < x.length; i++) {
      const xi = x[i]!
      for (let j = 0; j < out; j++) y[j]! += xi * w[i * out + j]!
    }
    return y
  }
  const rms = (x: number[], g: string) => {
    const gain = weight(g)
    const r = 1 / Math.sqrt(x.reduce((s, v) => s + v * v, 0) / x.length + o.eps)
    return x.map((v, i) => v * r * gain[i]!)
  }
  // rotate_half: (x1, x2) → (−x2, x1); cos/sin of pos · θ^(−2i/dh), repeated over both halves.
  const rope = (x: number[], pos: number) =>
    x.map((v, i) => {
      const f = i % (dh / 2)
      const angle = pos * o.theta ** ((-2 * f) / dh)
      const rotated = i < dh / 2 ? -x[i + dh / 2]! : x[i - dh / 2]!
      return v * Math.cos(angle) + rotated * Math.sin(angle)
    })
  let h = ids.map((id) => Array.from(embed.subarray(id * D, (id + 1) * D), Number))
  const p = (l: number, name: string) => `model.layers.${l}.${name}`
  for (let l = 0; l < o.layers; l++) {
    const x = h.map((row) => rms(row, p(l, 'input_layernorm.weight')))
    const q = x.map((r, t) => {
      const row = linear(r, p(l, 'self_attn.q_proj.weight'), D, p(l, 'self_attn.q_proj.bias'))
      return Array.from({ length: H }, (_, head) => rope(row.slice(head * dh, (head + 1) * dh), positions[t]!))
    })
    const k = x.map((r, t) => {
      const row = linear(r, p(l, 'self_attn.k_proj.weight'), KVH * dh, p(l, 'self_attn.k_proj.bias'))
      return Array.from({ length: KVH }, (_, kv) => rope(row.slice(kv * dh, (kv + 1) * dh), positions[t]!))
    })
    const v = x.map((r) => linear(r, p(l, 'self_attn.v_proj.weight'), KVH * dh, p(l, 'self_attn.v_proj.bias')))
    const attended = q.map((qRow, t) => {
      const out: number[] = []
      for (let head = 0; head < H; head++) {
        const kv = Math.floor(head / (H / KVH))
        const qh = qRow[head]!
        const scores = k.slice(0, t + 1).map((kRow) => kRow[kv]!.reduce((a, kd, d) => a + kd * qh[d]!, 0) / Math.sqrt(dh))
        const max = Math.max(...scores)
        const e = scores.map((s) => Math.exp(s - max))
        const z = e.reduce((a, b) => a + b, 0)
        for (let d = 0; d < dh; d++) out.push(e.reduce((a, ei, s) => a + (ei / z) * v[s]![kv * dh + d]!, 0))
      }
      return out
    })
    h = h.map((row, t) => {
      const a = linear(attended[t]!, p(l, 'self_attn.o_proj.weight'), D)
      return row.map((value, i) => value + a[i]!)
    })
    h = h.map((row) => {
      const y = rms(row, p(l, 'post_attention_layernorm.weight'))
      const gate = linear(y, p(l, 'mlp.gate_proj.weight'), FF)
      const up = linear(y, p(l, 'mlp.up_proj.weight'), FF)
      const down = linear(gate.map((g, i) => (g / (1 + Math.exp(-g))) * up[i]!), p(l, 'mlp.down_proj.weight'), D)
      return row.map((value, i) => value + down[i]!)
    })
  }
  return (lastOnly ? h.slice(-1) : h).map((row) => {
    const f = rms(row, 'model.norm.weight')
    return Array.from({ length: V }, (_, t) => f.reduce((s, x, i) => s + x * embed[t * D + i]!, 0))
  })
}
