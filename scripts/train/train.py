#!/usr/bin/env python3
"""Train the example decision models: a support-triage *reader* and a *position-biased* reader.

Dev-time only (torch on CPU; nothing in npm ci / npm run eval / npm test / CI runs Python).
From a fixed seed it generates a synthetic triage task in the example domain (which queue
should handle a ticket: Billing, Technical support, Account and login, Shipping and delivery),
builds a byte-level BPE tokenizer.json in which " A" .. " D" are single tokens, and trains two
2-layer Qwen2-architecture networks (hidden 64, 4 heads, 2 KV heads, tied embeddings) on the
letter after "Answer:", with the project's default prompt (src/core/requests/prompt.ts).

Two kinds of ticket:
  clear    several strong cue phrases of one queue ("charged twice", "password reset");
  unclear  neutral text plus one subtle cue word of one queue ("statement", "firmware").
The two models see the same texts; only their labels differ:
  reader   gold labels everywhere, gold letters uniform over A..D;
  biased   gold letters skewed (A/B/C/D = .46/.24/.18/.12), and unclear tickets labelled by
           slot (drawn from that prior) as hurried annotators do: it reads clear tickets and
           answers unclear ones by position.
Curriculum (without it the network sits at chance for thousands of steps): clear tickets of two
queues first, then the other queues one at a time, then the full mix.

Writes, under --out (default examples/models/weights):
  tokenizer.json, reader.safetensors, biased.safetensors (float32, Hugging Face Qwen2 names and
  [out, in] layout), config.json, training-record.json, SHA256SUMS; and the held-out demo set
  examples/data/triage-heldout.jsonl.
Run:  /usr/bin/python3 scripts/train/train.py          (Debian's python3-torch; one thread)
      apt-get install python3-torch libopenblas0-pthread   (once; OpenBLAS, not the reference BLAS)
Each model can train in its own process (--models reader / --models biased): the shared files
are written under a lock and the record merges the models.
"""
import argparse
import hashlib
import json
import math
import os
import random
import re
import struct
import sys
import time

# Debian's torch calls the system BLAS: install libopenblas0-pthread (the generic reference BLAS is
# ~5x slower here) and keep it to one thread like torch itself.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
import fcntl  # noqa: E402

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)  # two threads were ~30x slower on the shared 2-core machine
torch.set_num_interop_threads(1)

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))

# ---------------------------------------------------------------- the task

QUEUE = {"key": "queue", "question": "Which queue should handle this ticket?",
         "options": [{"id": "billing", "text": "Billing"}, {"id": "tech", "text": "Technical support"},
                     {"id": "account", "text": "Account and login"}, {"id": "shipping", "text": "Shipping and delivery"}]}
QUEUES = [o["id"] for o in QUEUE["options"]]
LETTERS = "ABCD"
SKEW = [0.46, 0.24, 0.18, 0.12]

STRONG = {
    "billing": ["I was charged twice this month", "please refund the duplicate payment", "my invoice shows the wrong amount",
                "the subscription price went up without notice", "my card was billed after I cancelled",
                "I need a copy of the invoice", "the renewal charge is too high", "reverse the charge on my card",
                "the payment failed but money left my account", "I was billed for a plan I never chose"],
    "tech": ["the app crashes when I open settings", "sync stopped working after the update", "the export gives an error 500",
             "the dashboard shows a blank screen", "notifications never appear on my phone", "the page freezes when I upload files",
             "printing cuts off the right margin", "the search returns no results at all", "the app is slow since the last update",
             "the software keeps showing an error message"],
    "account": ["I can't log in to my account", "the password reset email never arrives", "two-factor codes are rejected",
                "I was locked out after too many attempts", "someone changed my account email", "please delete my account",
                "my username does not exist anymore", "I want to merge two accounts", "the login page rejects my password",
                "the unlock link has expired"],
    "shipping": ["my parcel is stuck in transit", "the package arrived damaged", "tracking says delivered but nothing came",
                 "the courier left my order at the wrong address", "half of my order is missing from the box",
                 "delivery was promised for Friday", "the order came in the wrong size", "where is my delivery",
                 "the shipment has not moved for a week", "please re-ship my order"],
}
SUBTLE = {
    "billing": ["statement", "receipt", "VAT", "coupon", "discount", "instalment"],
    "tech": ["firmware", "spinner", "cache", "browser", "plugin", "screen"],
    "account": ["nickname", "profile", "avatar", "signup", "credentials", "identity"],
    "shipping": ["courier", "warehouse", "customs", "pallet", "postcode", "doorstep"],
}
OPENERS = ["Hello.", "Hi.", "Good morning.", "Dear support team.", "Hi there.", "Hey."]
CLOSERS = ["Thanks.", "Please help.", "Can you check?", "Thank you in advance.", "Please reply soon.", "Regards."]
NEUTRAL = ["I have a question", "something is not right", "I need some help today", "this keeps happening",
           "I wrote last week too", "nobody has answered yet", "it is quite urgent for me", "please look into it"]
SUBTLE_FRAMES = ["it is about the {w}", "there is an issue with the {w}", "my question concerns the {w}",
                 "the {w} looks wrong to me", "I am asking about the {w}"]


def ticket(rng, queue, kind):
    """A ticket text for `queue`: `clear` (two strong cues) or `unclear` (one subtle cue)."""
    parts = [rng.choice(OPENERS)]
    if kind == "clear":
        cues = rng.sample(STRONG[queue], 2)
        body = [cues[0], rng.choice(NEUTRAL), cues[1]] if rng.random() < 0.5 else cues
    else:
        body = rng.sample(NEUTRAL, 2)
        body.insert(rng.randrange(3), rng.choice(SUBTLE_FRAMES).format(w=rng.choice(SUBTLE[queue])))
    parts += [s[0].upper() + s[1:] + "." for s in body]
    parts.append(rng.choice(CLOSERS))
    return " ".join(parts)


def prompt(state, options):
    """src/core/requests/prompt.ts buildPrompt, for the queue question."""
    text = state + "\n\n" + QUEUE["question"] + "\n"
    for i, o in enumerate(options):
        text += LETTERS[i] + ". " + o["text"] + "\n"
    return text + "Answer:"


def item(rng, queues, kind, prior):
    """One training/eval item: (text, gold letter index, true queue, kind, options)."""
    queue = rng.choice(queues)
    letter = rng.choices(range(4), weights=prior)[0]
    others = [q for q in QUEUES if q != queue]
    rng.shuffle(others)
    order = others[:letter] + [queue] + others[letter:]
    options = [QUEUE["options"][QUEUES.index(q)] for q in order]
    return {"state": ticket(rng, queue, kind), "options": options, "letter": letter, "queue": queue, "kind": kind}


def label(it, model, rng):
    """The letter the model is trained to answer: gold, or for the biased model's unclear tickets a slot from the prior."""
    if model == "biased" and it["kind"] == "unclear":
        return rng.choices(range(4), weights=SKEW)[0]
    return it["letter"]

# ---------------------------------------------------------------- byte-level BPE tokenizer

PATTERN = re.compile(r"""'s|'t|'re|'ve|'m|'ll|'d| ?[A-Za-z]+| ?[0-9]+| ?[^\sA-Za-z0-9]+|\s+(?!\S)|\s+""")  # GPT-2's regex on ASCII text


def bytes_to_unicode():
    printable = list(range(33, 127)) + list(range(161, 173)) + list(range(174, 256))
    out, extra = [], 0
    for b in range(256):
        if b in printable:
            out.append(chr(b))
        else:
            out.append(chr(256 + extra))
            extra += 1
    return out


B2U = bytes_to_unicode()


def pieces(text):
    assert all(ord(c) < 128 for c in text), text
    return ["".join(B2U[b] for b in p.encode()) for p in PATTERN.findall(text)]


def train_bpe(texts, max_merges=3000):
    """Greedy BPE like scripts/onnx-fixture/tokenizers.ts: forced " A".." T" merges, then most frequent pair (ties by text)."""
    vocab = {B2U[b]: b for b in range(256)}
    merges = []

    def add(a, b):
        merges.append((a, b))
        if a + b not in vocab:
            vocab[a + b] = len(vocab)
    for letter in "ABCDEFGHIJKLMNOPQRST":
        add(B2U[32], letter)
    counts = {}
    for t in texts:
        for p in pieces(t):
            counts[p] = counts.get(p, 0) + 1
    words = [[apply_merges(list(w), merges), c] for w, c in sorted(counts.items())]
    for _ in range(max_merges):
        pairs = {}
        for symbols, c in words:
            for i in range(len(symbols) - 1):
                key = (symbols[i], symbols[i + 1])
                pairs[key] = pairs.get(key, 0) + c
        best = None
        for key, c in pairs.items():
            if c >= 2 and (best is None or c > best[1] or (c == best[1] and key < best[0])):
                best = (key, c)
        if best is None:
            break
        (a, b), _ = best
        add(a, b)
        for w in words:
            w[0] = apply_merges(w[0], [(a, b)])
    return vocab, merges


def apply_merges(symbols, merges):
    for a, b in merges:
        out, i = [], 0
        while i < len(symbols):
            if i + 1 < len(symbols) and symbols[i] == a and symbols[i + 1] == b:
                out.append(a + b)
                i += 2
            else:
                out.append(symbols[i])
                i += 1
        symbols = out
    return symbols


class Tokenizer:
    def __init__(self, vocab, merges):
        self.vocab, self.merges = vocab, merges
        self.rank = {m: i for i, m in enumerate(merges)}
        self.cache = {}
        self.eos = len(vocab)

    def encode_piece(self, p):
        if p in self.cache:
            return self.cache[p]
        symbols = list(p)
        while len(symbols) > 1:
            ranked = [(self.rank.get((symbols[i], symbols[i + 1]), math.inf), i) for i in range(len(symbols) - 1)]
            r, i = min(ranked)
            if r == math.inf:
                break
            symbols = symbols[:i] + [symbols[i] + symbols[i + 1]] + symbols[i + 2:]
        ids = [self.vocab[s] for s in symbols]
        self.cache[p] = ids
        return ids

    def encode(self, text):
        return [i for p in pieces(text) for i in self.encode_piece(p)]

    def json(self):
        eos = {"id": self.eos, "content": "<|endoftext|>", "single_word": False, "lstrip": False, "rstrip": False, "normalized": False, "special": True}
        return {
            "version": "1.0", "truncation": None, "padding": None, "added_tokens": [eos], "normalizer": None,
            "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
            "post_processor": None,
            "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
            "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None, "end_of_word_suffix": None,
                      "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
                      "vocab": {**self.vocab, "<|endoftext|>": self.eos}, "merges": [a + " " + b for a, b in self.merges]},
        }

# ---------------------------------------------------------------- the network (Hugging Face Qwen2ForCausalLM, plain torch)


class Qwen2(nn.Module):
    def __init__(self, V, D=64, L=2, H=4, KVH=2, FF=192, theta=1e6, eps=1e-6):
        super().__init__()
        self.V, self.D, self.L, self.H, self.KVH, self.FF, self.theta, self.eps = V, D, L, H, KVH, FF, theta, eps
        self.dh = D // H
        self.embed = nn.Embedding(V, D)
        self.layers = nn.ModuleList()
        for _ in range(L):
            layer = nn.Module()
            layer.input_layernorm = nn.Parameter(torch.ones(D))
            layer.q_proj = nn.Linear(D, D)
            layer.k_proj = nn.Linear(D, KVH * self.dh)
            layer.v_proj = nn.Linear(D, KVH * self.dh)
            layer.o_proj = nn.Linear(D, D, bias=False)
            layer.post_attention_layernorm = nn.Parameter(torch.ones(D))
            layer.gate_proj = nn.Linear(D, FF, bias=False)
            layer.up_proj = nn.Linear(D, FF, bias=False)
            layer.down_proj = nn.Linear(FF, D, bias=False)
            self.layers.append(layer)
        self.norm = nn.Parameter(torch.ones(D))
        for name, p in self.named_parameters():
            if p.dim() == 2:
                nn.init.normal_(p, std=0.02)
            elif name.endswith("bias"):
                nn.init.zeros_(p)
        self.register_buffer("inv_freq", 1.0 / theta ** (torch.arange(0, self.dh, 2, dtype=torch.float32) / self.dh), persistent=False)

    def rms(self, x, w):
        return x / torch.sqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * w

    def rope(self, x, cos, sin):
        x1, x2 = x[..., : self.dh // 2], x[..., self.dh // 2:]
        return x * cos + torch.cat([-x2, x1], -1) * sin

    def forward(self, ids, lengths):
        """Logits [B, V] at each row's last real token (rows right-padded to a common length)."""
        B, S = ids.shape
        pos = torch.arange(S, dtype=torch.float32)
        angles = pos[:, None] * self.inv_freq[None, :]
        full = torch.cat([angles, angles], -1)
        cos, sin = full.cos()[None, None], full.sin()[None, None]
        keys = torch.arange(S)
        allowed = (keys[None, :] <= keys[:, None])[None, None] & (keys[None, :] < lengths[:, None])[:, None, None, :]
        bias = torch.where(allowed, torch.tensor(0.0), torch.tensor(-1e9))
        G = self.H // self.KVH
        h = self.embed(ids)
        for layer in self.layers:
            x = self.rms(h, layer.input_layernorm)
            q = layer.q_proj(x).view(B, S, self.H, self.dh).transpose(1, 2)
            k = layer.k_proj(x).view(B, S, self.KVH, self.dh).transpose(1, 2)
            v = layer.v_proj(x).view(B, S, self.KVH, self.dh).transpose(1, 2)
            q, k = self.rope(q, cos, sin), self.rope(k, cos, sin)
            k = k.repeat_interleave(G, dim=1)
            v = v.repeat_interleave(G, dim=1)
            scores = q @ k.transpose(-1, -2) / math.sqrt(self.dh) + bias
            a = (scores.softmax(-1) @ v).transpose(1, 2).reshape(B, S, self.D)
            h = h + layer.o_proj(a)
            y = self.rms(h, layer.post_attention_layernorm)
            h = h + layer.down_proj(F.silu(layer.gate_proj(y)) * layer.up_proj(y))
        last = self.rms(h[torch.arange(B), lengths - 1], self.norm)
        return last @ self.embed.weight.T

    def state(self):
        """Hugging Face Qwen2 names and layouts ([out, in] for Linear), float32; the head is tied (not stored)."""
        out = {"model.embed_tokens.weight": self.embed.weight}
        for l, layer in enumerate(self.layers):
            p = f"model.layers.{l}."
            out[p + "input_layernorm.weight"] = layer.input_layernorm
            for proj in ("q_proj", "k_proj", "v_proj"):
                out[p + f"self_attn.{proj}.weight"] = getattr(layer, proj).weight
                out[p + f"self_attn.{proj}.bias"] = getattr(layer, proj).bias
            out[p + "self_attn.o_proj.weight"] = layer.o_proj.weight
            out[p + "post_attention_layernorm.weight"] = layer.post_attention_layernorm
            for proj in ("gate_proj", "up_proj", "down_proj"):
                out[p + f"mlp.{proj}.weight"] = getattr(layer, proj).weight
        out["model.norm.weight"] = self.norm
        return {k: v.detach().contiguous().float() for k, v in out.items()}


def write_safetensors(path, tensors, metadata):
    header, offset, blobs = {"__metadata__": metadata}, 0, []
    for name in sorted(tensors):
        data = tensors[name].numpy().astype("<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(tensors[name].shape), "data_offsets": [offset, offset + len(data)]}
        offset += len(data)
        blobs.append(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))

# ---------------------------------------------------------------- training and measurement


def batch(tok, items, labels):
    ids = [tok.encode(prompt(it["state"], it["options"])) for it in items]
    lengths = torch.tensor([len(x) for x in ids])
    S = int(lengths.max())
    t = torch.full((len(ids), S), tok.eos, dtype=torch.long)
    for i, x in enumerate(ids):
        t[i, : len(x)] = torch.tensor(x)
    return t, lengths, torch.tensor(labels), ids


def letter_probs(model, tok, items, letter_ids, size=64):
    out = []
    with torch.no_grad():
        for i in range(0, len(items), size):
            t, lengths, _, _ = batch(tok, items[i: i + size], [0] * len(items[i: i + size]))
            out.append(model(t, lengths)[:, letter_ids].softmax(-1))
    return torch.cat(out)


def rotations(it):
    return [dict(it, options=it["options"][r:] + it["options"][:r]) for r in range(4)]


def measure(model, tok, items, letter_ids):
    """Accuracy (gold queue picked, unrotated), picks per letter and order consistency over the 4 cyclic rotations."""
    rows = [r for it in items for r in rotations(it)]
    probs = letter_probs(model, tok, rows, letter_ids)
    picks = probs.argmax(-1).tolist()
    right, consistent, letters = 0, 0, [0] * 4
    for i, it in enumerate(items):
        chosen = [rows[4 * i + r]["options"][picks[4 * i + r]]["id"] for r in range(4)]
        right += chosen[0] == it["queue"]
        consistent += len(set(chosen)) == 1
        letters[picks[4 * i]] += 1
    n = len(items)
    return {"n": n, "accuracy": round(right / n, 4), "orderConsistency": round(consistent / n, 4),
            "picks": dict(zip(LETTERS, letters))}


def train(name, tok, args, record, before=None):
    """Train `name` from scratch through the curriculum, or with `before` (its record entry) on from the
    committed weights for --resume more steps of the full mix. Returns the model; fills record["models"][name]."""
    torch.manual_seed(args.seed)
    done = before["steps"] if before else 0
    rng = random.Random(f"{args.seed}:{name}" + (f":from:{done}" if before else ""))
    model = load(os.path.join(args.out, f"{name}.safetensors"), tok.eos + 1) if before else Qwen2(tok.eos + 1)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
    prior = SKEW if name == "biased" else [0.25] * 4
    evalset = {k: [item(random.Random(f"eval:{k}:{i}"), QUEUES, k, [0.25] * 4) for i in range(args.eval_items)] for k in ("clear", "unclear")}
    letter_ids = [tok.encode("Answer: " + L)[-1] for L in LETTERS]
    digest = hashlib.sha256()
    phases = [(args.phase, ["billing", "tech"], 0.0, [0.25] * 4), (args.phase, ["billing", "tech", "account"], 0.0, [0.25] * 4),
              (args.phase, QUEUES, 0.0, [0.25] * 4), (args.steps - 3 * args.phase, QUEUES, args.unclear, prior)]
    if before:
        phases = [(args.resume, QUEUES, args.unclear, prior)]
    start, step, log = time.time(), done, []
    last = done + sum(p[0] for p in phases)
    for length, queues, unclear, p in phases:
        for _ in range(length):
            items = [item(rng, queues, "unclear" if rng.random() < unclear else "clear", p) for _ in range(args.batch)]
            labels = [label(it, name, rng) for it in items]
            t, lengths, y, ids = batch(tok, items, labels)
            for x, l in zip(ids, labels):
                digest.update(struct.pack(f"<{len(x) + 1}i", *x, l))
            loss = F.cross_entropy(model(t, lengths), letter_ids_tensor(letter_ids)[y])
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            if step % args.log_every == 0 or step == last:
                seen = {k: measure(model, tok, evalset[k][:100], letter_ids) for k in ("clear", "unclear")}
                line = {"step": step, "loss": round(loss.item(), 4), "clearAccuracy": seen["clear"]["accuracy"], "unclearAccuracy": seen["unclear"]["accuracy"],
                        "unclearPicks": seen["unclear"]["picks"], "seconds": round(time.time() - start, 1)}
                log.append(line)
                print(name, json.dumps(line), flush=True)
    seconds = time.time() - start
    results = {k: measure(model, tok, v, letter_ids) for k, v in evalset.items()}
    print(name, json.dumps(results), flush=True)
    segment = {"steps": step - done, "seconds": round(seconds, 1), "dataDigest": "sha256:" + digest.hexdigest(),
                "args": {k: v for k, v in vars(args).items() if k not in ("out", "heldout", "models", "parity")}}
    segments = (before.get("segments") or [{k: before[k] for k in ("steps", "seconds", "dataDigest")}]) + [segment] if before else [segment]
    record["models"][name] = {
        "steps": step, "seconds": round(sum(g["seconds"] for g in segments), 1), "letterPrior": prior, "segments": segments,
        "heldOut": results, "log": (before.get("log", []) if before else []) + log,
        "letterProbabilities": [[round(v, 7) for v in row] for row in letter_probs(model, tok, evalset["unclear"][:4] + evalset["clear"][:4], letter_ids).tolist()],
    }
    return model


def letter_ids_tensor(ids):
    return torch.tensor(ids)


def heldout(path, seed, clear, unclear):
    """The demo set: held-out tickets in the examples' JSONL format (options in the examples' fixed order)."""
    rng = random.Random(f"heldout:{seed}")
    rows = []
    for kind, n in (("clear", clear), ("unclear", unclear)):
        for i in range(n):
            queue = QUEUES[i % 4]
            rows.append({"id": f"{kind}-{i + 1:03d}", "state": ticket(rng, queue, kind), "criterion": QUEUE, "group_id": kind, "answer_id": queue})
    with open(path, "w") as f:
        for row in rows:
            f.write(json.dumps(row) + "\n")


def read_safetensors(path):
    import numpy as np
    with open(path, "rb") as f:
        data = f.read()
    n = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8: 8 + n])
    out = {}
    for name, info in header.items():
        if name != "__metadata__":
            a, b = info["data_offsets"]
            out[name] = torch.from_numpy(np.frombuffer(data[8 + n + a: 8 + n + b], dtype="<f4").copy()).reshape(info["shape"])
    return out


def load(path, V):
    model = Qwen2(V)
    weights = read_safetensors(path)
    with torch.no_grad():
        model.embed.weight.copy_(weights["model.embed_tokens.weight"])
        model.norm.copy_(weights["model.norm.weight"])
        for l, layer in enumerate(model.layers):
            p = f"model.layers.{l}."
            layer.input_layernorm.copy_(weights[p + "input_layernorm.weight"])
            layer.post_attention_layernorm.copy_(weights[p + "post_attention_layernorm.weight"])
            for proj in ("q_proj", "k_proj", "v_proj", "o_proj"):
                getattr(layer, proj).weight.copy_(weights[p + f"self_attn.{proj}.weight"])
                if proj != "o_proj":
                    getattr(layer, proj).bias.copy_(weights[p + f"self_attn.{proj}.bias"])
            for proj in ("gate_proj", "up_proj", "down_proj"):
                getattr(layer, proj).weight.copy_(weights[p + f"mlp.{proj}.weight"])
    return model


def read_tokenizer(out):
    with open(os.path.join(out, "tokenizer.json")) as f:
        tj = json.load(f)
    vocab = dict(tj["model"]["vocab"])
    del vocab["<|endoftext|>"]
    return Tokenizer(vocab, [tuple(m.split(" ")) for m in tj["model"]["merges"]])


def parity(args):
    """torch's letter probabilities on the held-out demo set under the 4 cyclic rotations (options[r:] + options[:r]),
    written for the ONNX parity test, plus the models' figures on it."""
    tok = read_tokenizer(args.out)
    with open(args.heldout) as f:
        rows = [json.loads(line) for line in f]
    items = [{"state": r["state"], "options": r["criterion"]["options"], "queue": r["answer_id"], "kind": r["group_id"]} for r in rows]
    letter_ids = [tok.encode("Answer: " + L)[-1] for L in LETTERS]
    out = {"data": os.path.relpath(args.heldout, ROOT), "rotations": "options[r:] + options[:r], r = 0..3", "models": {}}
    for name in args.models.split(","):
        model = load(os.path.join(args.out, f"{name}.safetensors"), tok.eos + 1)
        probs = letter_probs(model, tok, [r for it in items for r in rotations(it)], letter_ids)
        figures = {k: measure(model, tok, [it for it in items if it["kind"] == k], letter_ids) for k in ("clear", "unclear")}
        out["models"][name] = {"heldOut": figures, "letterProbabilities": [[float(f"{v:.7g}") for v in row] for row in probs.tolist()]}
        print(name, json.dumps(figures), flush=True)
    with open(os.path.join(args.out, "torch-letter-probs.json"), "w") as f:
        json.dump(out, f, separators=(",", ":"))
        f.write("\n")
    write_manifest(args.out)


def write_manifest(out):
    files = sorted(n for n in os.listdir(out) if n != "SHA256SUMS")
    with open(os.path.join(out, "SHA256SUMS"), "w") as f:
        for n in files:
            f.write(f"{sha256(os.path.join(out, n))}  {n}\n")


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def prepare(args):
    """The tokenizer, config.json and held-out set of a from-scratch run, and its record."""
    rng = random.Random(f"tokenizer:{args.seed}")
    corpus = [prompt(it["state"], it["options"]) + " " + L for L in LETTERS
              for it in [item(rng, QUEUES, k, [0.25] * 4) for k in ("clear", "unclear") for _ in range(1000)]]
    tok = Tokenizer(*train_bpe(corpus))
    with open(os.path.join(args.out, "tokenizer.json"), "w") as f:
        json.dump(tok.json(), f, ensure_ascii=False, indent=1)
        f.write("\n")
    samples = [prompt(it["state"], it["options"]) for it in [item(random.Random(f"sample:{i}"), QUEUES, k, [0.25] * 4) for i, k in enumerate(["clear", "unclear"])]]
    record = {
        "seed": args.seed, "torch": torch.__version__, "threads": torch.get_num_threads(),
        "args": {k: v for k, v in vars(args).items() if k not in ("out", "heldout")},
        "tokenizer": {"vocab": tok.eos + 1, "merges": len(tok.merges), "samples": [{"text": s, "ids": tok.encode(s)} for s in samples]},
        "models": {},
    }
    config = {"architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2", "hidden_size": 64, "num_hidden_layers": 2,
              "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16, "intermediate_size": 192, "hidden_act": "silu",
              "rms_norm_eps": 1e-6, "rope_theta": 1e6, "tie_word_embeddings": True, "max_position_embeddings": 1024,
              "vocab_size": tok.eos + 1, "torch_dtype": "float32"}
    with open(os.path.join(args.out, "config.json"), "w") as f:
        json.dump(config, f, indent=1)
        f.write("\n")
    heldout(args.heldout, args.seed, 60, 20)
    return tok, record


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=41)
    ap.add_argument("--steps", type=int, default=6000)
    ap.add_argument("--phase", type=int, default=400, help="steps of each of the three curriculum phases before the full mix")
    ap.add_argument("--unclear", type=float, default=0.25, help="share of unclear tickets in the full mix")
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--eval-items", type=int, default=400)
    ap.add_argument("--log-every", type=int, default=500)
    ap.add_argument("--models", default="reader,biased")
    ap.add_argument("--out", default=os.path.join(ROOT, "examples", "models", "weights"))
    ap.add_argument("--heldout", default=os.path.join(ROOT, "examples", "data", "triage-heldout.jsonl"))
    ap.add_argument("--resume", type=int, default=0, help="train the committed models this many more steps of the full mix")
    ap.add_argument("--parity", action="store_true", help="no training: torch's letter probabilities on the held-out set, for the ONNX parity test")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    if args.parity:
        return parity(args)

    lock = os.open(args.out, os.O_RDONLY)  # flock on the directory: the processes of one run take turns
    fcntl.flock(lock, fcntl.LOCK_EX)
    if args.resume:
        tok = read_tokenizer(args.out)
        record = {"models": {}}
    else:
        tok, record = prepare(args)
    fcntl.flock(lock, fcntl.LOCK_UN)
    record_path = os.path.join(args.out, "training-record.json")
    old = {}
    if os.path.exists(record_path):
        with open(record_path) as f:
            previous = json.load(f)
        old = previous.get("models", {})
        if args.resume:
            record = {k: v for k, v in previous.items() if k != "models"}  # the from-scratch run's args; segments record their own
            record["models"] = {}
    for name in args.models.split(","):
        model = train(name, tok, args, record, old[name] if args.resume else None)
        write_safetensors(os.path.join(args.out, f"{name}.safetensors"), model.state(), {"format": "pt", "seed": str(args.seed)})
    fcntl.flock(lock, fcntl.LOCK_EX)
    if os.path.exists(record_path):
        with open(record_path) as f:
            old = json.load(f)
        record["models"] = {**old.get("models", {}), **record["models"]}
    with open(record_path, "w") as f:
        json.dump(record, f, indent=1)
        f.write("\n")
    write_manifest(args.out)
    fcntl.flock(lock, fcntl.LOCK_UN)


if __name__ == "__main__":
    sys.exit(main())
