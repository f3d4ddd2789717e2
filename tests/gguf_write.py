#!/usr/bin/env python3
"""gguf_write.py: a small GGUF writer of our own (struct only) for the tests.

    gguf_write.py OUT.gguf KIND

KIND: q4km (a tiny llama mixed as a Q4_K_M export mixes it: Q4_K matrices,
Q6_K attn_v/ffn_down/output, Q8_0, F16, F32 norms), or a hostile file:
truncated, strlen, bomb, deep, badtype, overflow, dup, overlap, outside.
Prints the sum of the tensor sizes (bytes) and the parameter count.
Sizes per block: ggml's type traits (Q4_K 144 bytes per 256, Q6_K 210 per
256, Q8_0 34 per 32, F16 2, F32 4).
"""
import struct
import sys

TYPES = {"F32": (0, 1, 4), "F16": (1, 1, 2), "Q8_0": (8, 32, 34), "Q4_K": (12, 256, 144),
         "Q6_K": (14, 256, 210)}


def s(x):
    b = x if isinstance(x, bytes) else x.encode()
    return struct.pack("<Q", len(b)) + b


def kv_u32(k, v):
    return s(k) + struct.pack("<II", 4, v)


def kv_str(k, v):
    return s(k) + struct.pack("<I", 8) + s(v)


def tensors_q4km(L=2, h=256, ffn=512, heads=4, kv=2, vocab=512):
    d = h // heads
    t = [("token_embd.weight", [h, vocab], "Q4_K"), ("output_norm.weight", [h], "F32"),
         ("output.weight", [h, vocab], "Q6_K")]
    for i in range(L):
        b = "blk.%d." % i
        t += [(b + "attn_norm.weight", [h], "F32"), (b + "attn_q.weight", [h, h], "Q4_K"),
              (b + "attn_k.weight", [h, kv * d], "Q4_K"),
              (b + "attn_v.weight", [h, kv * d], "Q6_K" if i % 2 == 0 else "Q8_0"),
              (b + "attn_output.weight", [h, h], "Q4_K"), (b + "ffn_norm.weight", [h], "F32"),
              (b + "ffn_gate.weight", [h, ffn], "Q4_K"),
              (b + "ffn_up.weight", [h, ffn], "Q4_K" if i % 2 == 0 else "F16"),
              (b + "ffn_down.weight", [ffn, h], "Q6_K" if i % 2 == 0 else "Q4_K")]
    return t


def build(kvs, tensors, pad_data=True, data_bytes=None, offsets=None):
    out = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(kvs)) + b"".join(kvs)
    off, total, params = 0, 0, 0
    for i, (name, dims, ty) in enumerate(tensors):
        tid, blk, bpb = TYPES[ty]
        n = 1
        for x in dims:
            n *= x
        nb = n // blk * bpb
        o = offsets[i] if offsets else off
        out += s(name) + struct.pack("<I", len(dims)) + b"".join(struct.pack("<Q", x) for x in dims)
        out += struct.pack("<IQ", tid, o)
        total += nb
        params += n
        off += (nb + 31) // 32 * 32
    out += b"\0" * ((32 - len(out) % 32) % 32)
    out += b"\0" * (off if data_bytes is None else data_bytes)
    return out, total, params


def llama_kvs(L=2):
    return [kv_str("general.architecture", "llama"), kv_str("general.name", "Tiny Q4_K_M"),
            kv_u32("llama.block_count", L), kv_u32("llama.embedding_length", 256),
            kv_u32("llama.feed_forward_length", 512), kv_u32("llama.attention.head_count", 4),
            kv_u32("llama.attention.head_count_kv", 2), kv_u32("llama.context_length", 8192),
            kv_u32("llama.vocab_size", 512)]


def main():
    path, kind = sys.argv[1], sys.argv[2]
    kvs, ts = llama_kvs(), tensors_q4km()
    img, total, params = build(kvs, ts)
    if kind == "truncated":
        img = img[: len(img) // 2]
    elif kind == "strlen":
        img = b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + struct.pack("<Q", 1 << 40) + b"abc" + b"\0" * 32
    elif kind == "bomb":
        img = (b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + s("tokenizer.ggml.tokens") +
               struct.pack("<IIQ", 9, 8, 1 << 60) + b"\0" * 64)
    elif kind == "deep":
        img = b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + s("x") + struct.pack("<I", 9)
        img += struct.pack("<IQ", 9, 1) * 40 + struct.pack("<IQ", 0, 1) + b"\0" * 64
    elif kind == "badtype":
        i = img.index(b"output.weight") + len("output.weight") + 4 + 16
        img = img[:i] + struct.pack("<I", 77) + img[i + 4:]
    elif kind == "overflow":
        img = (b"GGUF" + struct.pack("<IQQ", 3, 1, 0) + s("w") + struct.pack("<I", 3) +
               struct.pack("<QQQ", 1 << 40, 1 << 40, 1 << 40) + struct.pack("<IQ", 0, 0) + b"\0" * 64)
    elif kind == "dup":
        ts2 = ts + [ts[1]]
        img, _, _ = build(kvs, ts2)
    elif kind == "overlap":
        offs = [0] * len(ts)
        img, _, _ = build(kvs, ts, offsets=offs)
    elif kind == "outside":
        img, _, _ = build(kvs, ts, data_bytes=100)
    elif kind == "hostile":
        # general.name as a file from a hub might carry it: an OSC that
        # retitles the window, BEL, backspaces, a screen clear, a C1 CSI,
        # and a byte that is not UTF-8 (issue 27 item 5)
        name = b"\x1b]0;pwned\x07Tiny\x08\x08\x1b[2J\xc2\x9b31m \xff end"
        kvs2 = [kv for kv in kvs if b"general.name" not in kv]
        kvs2.append(kv_str("general.name", name))
        img, _, _ = build(kvs2, ts)
    elif kind != "q4km":
        sys.exit("unknown kind " + kind)
    with open(path, "wb") as f:
        f.write(img)
    print(total, params)


main()
