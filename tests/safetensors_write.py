#!/usr/bin/env python3
"""Write tiny safetensors files and Hugging Face folders for the tests.

Python's standard library only, so the suite runs where the `safetensors`
package cannot be installed. The format (huggingface/safetensors README):
an 8-byte little-endian header length N, N bytes of JSON mapping each
tensor name to {"dtype", "shape", "data_offsets": [begin, end]} (offsets
from the byte after the header, an optional "__metadata__" of strings),
then the data. The data written is zeros: vramlab reads headers only.

The model: a tiny Llama (2 layers, hidden 256, 4 heads, 2 KV heads of 64,
FFN 512, vocab 512, 8192 positions), with transformers' tensor names.

  safetensors_write.py folder DIR     config.json + model.safetensors (BF16)
  safetensors_write.py sharded DIR    two shards and model.safetensors.index.json
  safetensors_write.py gptq DIR       a GPTQ export (4 bits, group 64: qweight,
                                      qzeros, scales, g_idx; FP16 elsewhere)
  safetensors_write.py awq DIR        an AWQ export (4 bits, group 64)
  safetensors_write.py ct DIR         compressed-tensors pack-quantized (int4, group 64)
  safetensors_write.py fp8 DIR        FP8 E4M3 weights with block scales (weight_scale_inv)
  safetensors_write.py bad FILE KIND  a broken file (see BAD)
  safetensors_write.py corpus DIR     good and broken files for the fuzz target

Each good model prints "BYTES PARAMS": the sum of its tensors' sizes and
its parameter count (a packed int32 word holds 32/bits weights; scales,
zeros and g_idx are no parameters).
"""
import json
import os
import struct
import sys

SIZE = {"BOOL": 8, "U8": 8, "I8": 8, "F8_E4M3": 8, "F8_E5M2": 8, "I16": 16, "U16": 16,
        "F16": 16, "BF16": 16, "I32": 32, "U32": 32, "F32": 32, "F64": 64, "I64": 64,
        "U64": 64, "F4": 4, "F8_E8M0": 8}

L, H, HEADS, KV, HD, FFN, VOCAB, CTX = 2, 256, 4, 2, 64, 512, 512, 8192


def nbytes(dtype, shape):
    n = 1
    for d in shape:
        n *= d
    return n * SIZE[dtype] // 8


def header_of(tensors, metadata=None):
    """The header dict and the data size for [(name, dtype, shape)]."""
    h = {}
    if metadata is not None:
        h["__metadata__"] = metadata
    off = 0
    for name, dtype, shape in tensors:
        n = nbytes(dtype, shape)
        h[name] = {"dtype": dtype, "shape": list(shape), "data_offsets": [off, off + n]}
        off += n
    return h, off


def write_raw(path, header_text, data_len, length=None):
    hb = header_text.encode() if isinstance(header_text, str) else header_text
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(hb) if length is None else length))
        f.write(hb)
        f.write(b"\0" * data_len)


def write(path, tensors, metadata=None):
    h, size = header_of(tensors, metadata if metadata is not None else {"format": "pt"})
    write_raw(path, json.dumps(h), size)
    return size


def config(extra=None, dtype="bfloat16"):
    c = {"architectures": ["LlamaForCausalLM"], "model_type": "llama",
         "num_hidden_layers": L, "hidden_size": H, "intermediate_size": FFN,
         "num_attention_heads": HEADS, "num_key_value_heads": KV, "head_dim": HD,
         "vocab_size": VOCAB, "max_position_embeddings": CTX, "hidden_act": "silu",
         "tie_word_embeddings": False, "rms_norm_eps": 1e-05, "rope_theta": 500000.0,
         "torch_dtype": dtype}
    if extra:
        c.update(extra)
    return c


# (name, out, in) of every linear of a layer
def linears(i):
    b = "model.layers.%d." % i
    return [(b + "self_attn.q_proj", HEADS * HD, H), (b + "self_attn.k_proj", KV * HD, H),
            (b + "self_attn.v_proj", KV * HD, H), (b + "self_attn.o_proj", H, HEADS * HD),
            (b + "mlp.gate_proj", FFN, H), (b + "mlp.up_proj", FFN, H),
            (b + "mlp.down_proj", H, FFN)]


def llama(dtype="BF16", linear=None):
    """The tensors; linear(name, out, in) gives a quantized linear's tensors."""
    t = [("model.embed_tokens.weight", dtype, (VOCAB, H))]
    for i in range(L):
        b = "model.layers.%d." % i
        t.append((b + "input_layernorm.weight", dtype, (H,)))
        t.append((b + "post_attention_layernorm.weight", dtype, (H,)))
        for name, o, n in linears(i):
            t.extend(linear(name, o, n) if linear else [(name + ".weight", dtype, (o, n))])
    t.append(("model.norm.weight", dtype, (H,)))
    t.append(("lm_head.weight", dtype, (VOCAB, H)))
    return t


PARAMS = VOCAB * H * 2 + H + L * (2 * H + sum(o * n for _, o, n in linears(0)))
G = 64


def gptq_linear(name, o, n):
    return [(name + ".qweight", "I32", (n * 4 // 32, o)), (name + ".qzeros", "I32", (n // G, o * 4 // 32)),
            (name + ".scales", "F16", (n // G, o)), (name + ".g_idx", "I32", (n,))]


def awq_linear(name, o, n):
    return [(name + ".qweight", "I32", (n, o * 4 // 32)), (name + ".qzeros", "I32", (n // G, o * 4 // 32)),
            (name + ".scales", "F16", (n // G, o))]


def ct_linear(name, o, n):
    return [(name + ".weight_packed", "I32", (o, n * 4 // 32)),
            (name + ".weight_scale", "BF16", (o, n // G)), (name + ".weight_shape", "I64", (2,))]


def fp8_linear(name, o, n):
    return [(name + ".weight", "F8_E4M3", (o, n)),
            (name + ".weight_scale_inv", "F32", ((o + 127) // 128, (n + 127) // 128))]


QUANT = {
    "gptq": (gptq_linear, "F16", {"quant_method": "gptq", "bits": 4, "group_size": G,
                                  "desc_act": False, "sym": True}),
    "awq": (awq_linear, "F16", {"quant_method": "awq", "bits": 4, "group_size": G,
                                "zero_point": True, "version": "gemm"}),
    "ct": (ct_linear, "BF16", {"quant_method": "compressed-tensors", "format": "pack-quantized",
                               "config_groups": {"group_0": {
                                   "targets": ["Linear"],
                                   "weights": {"num_bits": 4, "group_size": G, "type": "int",
                                               "strategy": "group", "symmetric": True}}},
                               "ignore": ["lm_head"]}),
    "fp8": (fp8_linear, "BF16", {"quant_method": "fp8", "fmt": "e4m3",
                                 "activation_scheme": "dynamic", "weight_block_size": [128, 128]}),
}


def folder(d, tensors, cfg, shards=1):
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump(cfg, f, indent=2)
    total = 0
    if shards == 1:
        total = write(os.path.join(d, "model.safetensors"), tensors)
    else:
        per = (len(tensors) + shards - 1) // shards
        wm = {}
        for s in range(shards):
            name = "model-%05d-of-%05d.safetensors" % (s + 1, shards)
            part = tensors[s * per:(s + 1) * per]
            total += write(os.path.join(d, name), part)
            for t in part:
                wm[t[0]] = name
        with open(os.path.join(d, "model.safetensors.index.json"), "w") as f:
            json.dump({"metadata": {"total_size": total}, "weight_map": wm}, f, indent=2)
    return total


def t1(name="w", dtype="F32", shape=(2, 2), off=(0, 16)):
    return {name: {"dtype": dtype, "shape": list(shape), "data_offsets": list(off)}}


# Broken files: (header text, data bytes, length field or None).
BAD = {
    "hdrlen": (json.dumps(t1()), 16, 1 << 40),
    "badjson": ('{"w": {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 16]', 16, None),
    "dtype": (json.dumps(t1(dtype="Q4_K")), 16, None),
    "overlap": (json.dumps({"a": t1()["w"], "b": t1(off=(8, 24))["w"]}), 24, None),
    "outside": (json.dumps(t1(off=(0, 16))), 8, None),
    "dup": ('{"w": %s, "w": %s}' % (json.dumps(t1()["w"]), json.dumps(t1(off=(16, 32))["w"])), 32, None),
    "deep": ('{"__metadata__": ' + "[" * 100 + "]" * 100 + "}", 0, None),
    "overflow": (json.dumps(t1(shape=(1 << 40, 1 << 40), off=(0, 16))), 16, None),
    "mismatch": (json.dumps(t1(shape=(3, 2), off=(0, 16))), 16, None),
    "notobject": ("[1, 2, 3]", 0, None),
}


def bad(path, kind):
    if kind == "truncated":
        h, size = header_of([("w", "F32", (2, 2))])
        hb = json.dumps(h).encode()
        with open(path, "wb") as f:
            f.write(struct.pack("<Q", len(hb)))
            f.write(hb[: len(hb) // 2])
        return
    text, data, length = BAD[kind]
    write_raw(path, text, data, length)


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    cmd, dest = argv[1], argv[2]
    if cmd == "folder":
        print(folder(dest, llama(), config()), PARAMS)
    elif cmd == "sharded":
        print(folder(dest, llama(), config(), shards=2), PARAMS)
    elif cmd in QUANT:
        lin, dt, q = QUANT[cmd]
        print(folder(dest, llama(dt, lin), config({"quantization_config": q},
                                                 "float16" if dt == "F16" else "bfloat16")),
              PARAMS)
    elif cmd == "bad":
        bad(dest, argv[3])
    elif cmd == "corpus":
        os.makedirs(dest, exist_ok=True)
        write(os.path.join(dest, "tiny.safetensors"), [("a", "F32", (2, 3)), ("b", "BF16", (4,)),
                                                       ("c", "I32", (1, 2))])
        write(os.path.join(dest, "gptq.safetensors"), llama("F16", gptq_linear)[:8])
        for kind in list(BAD) + ["truncated"]:
            bad(os.path.join(dest, kind + ".safetensors"), kind)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
