"""A plain llama forward pass in PyTorch on what a gguffs mount's hf/ serves, written from the
Hugging Face modeling equations (RMSNorm, rotate-half RoPE, grouped-query attention, SwiGLU),
compared with llama.cpp's greedy continuation and next-token probabilities.

    python3 hf_torch_forward.py MNT LLAMA.json MODE

MNT: the mount; LLAMA.json: tests/interop/llama.mjs's output (--prompt, --tokens,
--probabilities) on MNT/model.gguf. MODE "hf" loads every weight from MNT/hf/model.safetensors;
MODE "no-unpermute" takes q_proj/k_proj from MNT/tensors/*/data.npy instead (the GGUF rows with
only the names changed), which must not match. Prints one JSON object:
{"steps": N, "top1_agree": K, "max_prob_diff": D, "max_relative_diff": R, "largest_prob": P}
over llama.cpp's top-K tokens of every step.

The safetensors file is read by hand (struct + json) and mapped with numpy.memmap, then
torch.from_numpy: no copy of the weights. llama.cpp multiplies F16 weights with activations
rounded to F16 and keeps its KV cache in F16; the pass rounds at the same places so that the
comparison can be tight.
"""
import json
import math
import os
import struct
import sys

import numpy
import torch

DTYPES = {"F32": numpy.float32, "F16": numpy.float16}


def load_safetensors(path):
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n))
    header.pop("__metadata__", None)
    buffer = numpy.memmap(path, dtype=numpy.uint8, mode="r", offset=8 + n)
    tensors = {}
    for name, e in header.items():
        begin, end = e["data_offsets"]
        array = buffer[begin:end].view(DTYPES[e["dtype"]]).reshape(e["shape"])
        tensors[name] = torch.from_numpy(numpy.asarray(array))  # a view of the mapping
    return tensors


def f16(x):
    return x.to(torch.float16).to(torch.float32)


def linear(x, w):
    # ggml: F16 weights times activations converted to F16, summed in float32.
    if w.dtype == torch.float16:
        return f16(x) @ w.to(torch.float32).T
    return x @ w.to(torch.float32).T


def rms_norm(x, w, eps):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w.to(torch.float32)


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def rope(x, positions, theta, head_dim):
    inv_freq = 1.0 / (theta ** (torch.arange(0, head_dim, 2, dtype=torch.float64) / head_dim))
    angles = positions[:, None].to(torch.float64) * inv_freq[None, :]
    emb = torch.cat((angles, angles), dim=-1)
    cos, sin = emb.cos().to(torch.float32), emb.sin().to(torch.float32)
    return x * cos[None] + rotate_half(x) * sin[None]  # x: [heads, seq, head_dim]


def forward(w, c, tokens):
    """Logits of the last position for the token list."""
    hidden, n_head, n_kv = c["hidden_size"], c["num_attention_heads"], c["num_key_value_heads"]
    head_dim, eps, theta = c["head_dim"], c["rms_norm_eps"], c["rope_theta"]
    seq = len(tokens)
    positions = torch.arange(seq)
    x = w["model.embed_tokens.weight"][torch.tensor(tokens)].to(torch.float32)
    mask = torch.full((seq, seq), float("-inf")).triu(1)
    for i in range(c["num_hidden_layers"]):
        p = "model.layers.%d." % i
        h = rms_norm(x, w[p + "input_layernorm.weight"], eps)
        q = linear(h, w[p + "self_attn.q_proj.weight"]).view(seq, n_head, head_dim).transpose(0, 1)
        k = linear(h, w[p + "self_attn.k_proj.weight"]).view(seq, n_kv, head_dim).transpose(0, 1)
        v = linear(h, w[p + "self_attn.v_proj.weight"]).view(seq, n_kv, head_dim).transpose(0, 1)
        q, k = rope(q, positions, theta, head_dim), rope(k, positions, theta, head_dim)
        k, v = f16(k), f16(v)  # llama.cpp's F16 KV cache
        group = n_head // n_kv
        k, v = k.repeat_interleave(group, dim=0), v.repeat_interleave(group, dim=0)
        scores = (f16(q) @ k.transpose(1, 2)) / math.sqrt(head_dim) + mask
        attn = f16(torch.softmax(scores, dim=-1)) @ v
        x = x + linear(attn.transpose(0, 1).reshape(seq, hidden), w[p + "self_attn.o_proj.weight"])
        h = rms_norm(x, w[p + "post_attention_layernorm.weight"], eps)
        gate = linear(h, w[p + "mlp.gate_proj.weight"])
        up = linear(h, w[p + "mlp.up_proj.weight"])
        x = x + linear(torch.nn.functional.silu(gate) * up, w[p + "mlp.down_proj.weight"])
    x = rms_norm(x[-1:], w["model.norm.weight"], eps)
    head = w.get("lm_head.weight", w["model.embed_tokens.weight"])
    return linear(x, head)[0]


def main():
    mnt, llama_json, mode = sys.argv[1], sys.argv[2], sys.argv[3]
    with open(llama_json) as f:
        llama = json.load(f)
    with open(os.path.join(mnt, "hf", "config.json")) as f:
        config = json.load(f)
    weights = load_safetensors(os.path.join(mnt, "hf", "model.safetensors"))
    if mode == "no-unpermute":
        for i in range(config["num_hidden_layers"]):
            for g, h in (("attn_q", "q_proj"), ("attn_k", "k_proj")):
                npy = os.path.join(mnt, "tensors", "blk.%d.%s.weight" % (i, g), "data.npy")
                weights["model.layers.%d.self_attn.%s.weight" % (i, h)] = torch.from_numpy(
                    numpy.asarray(numpy.load(npy, mmap_mode="r")))
    tokens = list(llama["promptTokens"])
    agree, max_diff, max_rel, top_p = 0, 0.0, 0.0, 0.0
    with torch.no_grad():
        for step, want in enumerate(llama["tokens"]):
            probs = torch.softmax(forward(weights, config, tokens).to(torch.float64), dim=-1)
            if int(torch.argmax(probs)) == want:
                agree += 1
            for token_id, p in llama["probabilities"][step]:
                max_diff = max(max_diff, abs(float(probs[token_id]) - p))
                max_rel = max(max_rel, abs(float(probs[token_id]) - p) / p)
                top_p = max(top_p, p)
            tokens.append(want)  # follow llama.cpp's continuation
    print(json.dumps({"steps": len(llama["tokens"]), "top1_agree": agree,
                      "max_prob_diff": max_diff, "max_relative_diff": max_rel,
                      "largest_prob": top_p}))


main()
