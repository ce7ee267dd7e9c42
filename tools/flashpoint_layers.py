#!/usr/bin/env python3
"""flashpoint_layers.py: writes models/<model>-layers.json, per-layer profiles of the six
NLP models of the Flashpoint thesis (issue 14), for model partitioning.

Each layer's parameter count is exact arithmetic on the model's published configuration
(the CONFIGS table below, with its sources); its FLOPs are the standard transformer
arithmetic (2 x the multiply-adds of the matmuls, attention score terms with the sequence
length); its output is the activation a cut after it carries, in float32, for one request
of SEQUENCE_TOKENS tokens.  The whole-model profiles (models/<model>.json, written by
tools/flashpoint_models.py) are then split: weights_bytes in proportion to parameters,
exec_s in proportion to FLOPs, each summing exactly to the profile's number.  Rules and
tags: docs/flashpoint-layers.md.  Standard library only; paths are the repository's,
from any working folder.

Usage: tools/flashpoint_layers.py            write the six files
       tools/flashpoint_layers.py --check    exit 1 if a committed file differs
       tools/flashpoint_layers.py --report   per-model totals and the Table 3.1 check
"""
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# [ASSUMPTION] One request = batch 1, 128 tokens in (and, for the encoder-decoder models,
# 128 decoder tokens, one forward pass).  The thesis profiled with inputs from the CodeBERT
# code-to-NL test set (seed section 1.4); that task caps code at 256 and documents at 128
# tokens (microsoft/CodeBERT CodeBERT/code2nl/README.md @ 1c18ded7: source_length=256,
# target_length=128).  128 is the short-text end of that range and within every model's
# position limit.
SEQUENCE_TOKENS = 128
DTYPE_BYTES = 4                 # float32 activations (the traces are float32)
TOLERANCE_TABLE = 0.02          # self-check: params within 2 % of FP Table 3.1
PS_PER_S = 10 ** 12             # exec times are split in integer picoseconds

# Published configurations [MEASURED: the checkpoints' config.json on the Hugging Face
# hub; what was looked up and what was taken from issue 14: docs/flashpoint-layers.md §10].
CONFIGS = {
    "codebert-base": {
        "arch": "roberta", "table_params": 125e6,
        "cfg": {"layers": 12, "d": 768, "ffn": 3072, "heads": 12, "vocab": 50265,
                "positions": 514, "type_vocab": 1},
        "cite": "microsoft/codebert-base config.json (RobertaModel: 12 layers, hidden 768, "
                "12 heads, intermediate 3072, vocab 50265, max_position_embeddings 514, "
                "type_vocab_size 1); the checkpoint is RobertaModel with its pooler, no LM head",
    },
    "albert-xxlarge-v2": {
        "arch": "albert", "table_params": 223e6,
        "cfg": {"layers": 12, "d": 4096, "ffn": 16384, "heads": 64, "embed": 128,
                "vocab": 30000, "positions": 512, "type_vocab": 2},
        "cite": "albert-xxlarge-v2 config.json (12 layers in 1 hidden group: one shared layer, "
                "hidden 4096, 64 heads, intermediate 16384, embedding 128, vocab 30000, "
                "max_position_embeddings 512, type_vocab_size 2; also the AlbertConfig "
                "defaults in huggingface/transformers configuration_albert.py); AlbertModel "
                "with its pooler, no MLM head (4 x params = 890.4 MB matches Table 3.1's 890 MB; "
                "with the MLM head it would be 892.6 MB)",
    },
    "bart-large": {
        "arch": "bart", "table_params": 406e6,
        "cfg": {"enc_layers": 12, "dec_layers": 12, "d": 1024, "ffn": 4096, "heads": 16,
                "vocab": 50265, "positions": 1024, "pos_offset": 2},
        "cite": "facebook/bart-large config.json (12 encoder + 12 decoder layers, d_model 1024, "
                "16 heads, ffn 4096, vocab 50265, max_position_embeddings 1024, "
                "add_final_layer_norm false, one embedding shared by encoder, decoder and LM "
                "head); learned positions have 1024 + 2 rows (BartLearnedPositionalEmbedding "
                "offset 2, huggingface/transformers modeling_bart.py)",
    },
    "dialogpt-large": {
        "arch": "gpt2", "table_params": 774e6,
        "cfg": {"layers": 36, "d": 1280, "heads": 20, "vocab": 50257, "positions": 1024},
        "cite": "microsoft/DialoGPT-large config.json = GPT-2 large (n_layer 36, n_embd 1280, "
                "n_head 20, vocab 50257, n_positions 1024, LM head tied to wte)",
    },
    "gpt2-xl": {
        "arch": "gpt2", "table_params": 1558e6,
        "cfg": {"layers": 48, "d": 1600, "heads": 25, "vocab": 50257, "positions": 1024},
        "cite": "gpt2-xl config.json (n_layer 48, n_embd 1600, n_head 25, vocab 50257, "
                "n_positions 1024, LM head tied to wte)",
    },
    "t5-3b": {
        "arch": "t5", "table_params": 2.8e9,
        "cfg": {"enc_layers": 24, "dec_layers": 24, "d": 1024, "ffn": 16384, "heads": 32,
                "d_kv": 128, "vocab": 32128, "buckets": 32},
        "cite": "t5-3b configuration as issue 14 gives it, that of its published config.json (24 encoder + 24 decoder blocks, d_model 1024, d_ff 16384 "
                "ReLU without biases, 32 heads x d_kv 128, vocab 32128, "
                "relative_attention_num_buckets 32 in the first block of each stack, "
                "T5LayerNorm without bias, LM head tied to the shared embedding "
                "(tie_word_embeddings, T5 v1.0))",
    },
}
ORDER = ["codebert-base", "albert-xxlarge-v2", "bart-large", "dialogpt-large", "gpt2-xl", "t5-3b"]


def _layer(name, params, flops, out_elems):
    return {"name": name, "params": params, "flops": flops, "out_bytes": out_elems * DTYPE_BYTES}


# FLOPs, 2 x multiply-adds of the matmuls only (layer norms, softmax, activations,
# embedding look-ups and residual adds are O(S d) and left out).  Attention computes the
# full S x S scores even where a causal mask hides half of them (as the implementations do).
def _self_attn_flops(s, d, inner):
    return 2 * s * d * inner * 4 + 2 * s * s * inner * 2      # Q,K,V,O + QK^T, AV


def _cross_attn_flops(s_dec, s_enc, d, inner):
    return 2 * s_dec * d * inner * 2 + 2 * s_enc * d * inner * 2 + 2 * s_dec * s_enc * inner * 2


def _ffn_flops(s, d, ffn):
    return 2 * s * d * ffn * 2


def _bert_layer_params(d, ffn):
    """A post-LN BERT/RoBERTa/ALBERT/BART encoder layer with biases."""
    return 4 * (d * d + d) + 2 * d + (d * ffn + ffn) + (ffn * d + d) + 2 * d


def layers_roberta(c, s):
    d = c["d"]
    out = [_layer("embed", c["vocab"] * d + c["positions"] * d + c["type_vocab"] * d + 2 * d, 0, s * d)]
    for i in range(c["layers"]):
        out.append(_layer("layer%d" % i, _bert_layer_params(d, c["ffn"]),
                          _self_attn_flops(s, d, d) + _ffn_flops(s, d, c["ffn"]), s * d))
    out.append(_layer("pooler", d * d + d, 2 * d * d, d))          # dense+tanh on token 0
    return out


def layers_albert(c, s):
    d, e, n = c["d"], c["embed"], c["layers"]
    out = [_layer("embed", c["vocab"] * e + c["positions"] * e + c["type_vocab"] * e + 2 * e, 0, s * e),
           _layer("embed_proj", e * d + d, 2 * s * e * d, s * d)]
    # [ASSUMPTION] The one shared layer's parameters are split equally over the 12
    # applications (the remainder, 1 each, to the first ones) so the parts add up to the
    # file; a part holding any ALBERT layer really needs the whole shared set.
    shared = _bert_layer_params(d, c["ffn"])
    for i in range(n):
        out.append(_layer("layer%d" % i, shared // n + (1 if i < shared % n else 0),
                          _self_attn_flops(s, d, d) + _ffn_flops(s, d, c["ffn"]), s * d))
    out.append(_layer("pooler", d * d + d, 2 * d * d, d))
    return out


def layers_bart(c, s):
    d, f, v = c["d"], c["ffn"], c["vocab"]
    pos = (c["positions"] + c["pos_offset"]) * d
    out = [_layer("enc_embed", v * d + pos + 2 * d, 0, s * d)]     # owns the shared embedding
    for i in range(c["enc_layers"]):
        out.append(_layer("enc%d" % i, _bert_layer_params(d, f),
                          _self_attn_flops(s, d, d) + _ffn_flops(s, d, f), s * d))
    # [ASSUMPTION] Decoder input = the input shifted right (BartModel's default), so 128
    # decoder tokens.  Inside the decoder a cut carries the decoder state and the encoder
    # output; after the last decoder layer only the decoder state is needed.
    out.append(_layer("dec_embed", pos + 2 * d, 0, 2 * s * d))    # token table tied to enc_embed
    attn = 4 * (d * d + d) + 2 * d
    for i in range(c["dec_layers"]):
        last = i == c["dec_layers"] - 1
        out.append(_layer("dec%d" % i, 2 * attn + (d * f + f) + (f * d + d) + 2 * d,
                          _self_attn_flops(s, d, d) + _cross_attn_flops(s, s, d, d) + _ffn_flops(s, d, f),
                          s * d if last else 2 * s * d))
    out.append(_layer("lm_head", 0, 2 * s * d * v, s * v))        # tied; final_logits_bias is a buffer
    return out


def layers_gpt2(c, s):
    d, v = c["d"], c["vocab"]
    out = [_layer("embed", v * d + c["positions"] * d, 0, s * d)]
    block = 2 * d + (d * 3 * d + 3 * d) + (d * d + d) + 2 * d + (d * 4 * d + 4 * d) + (4 * d * d + d)
    for i in range(c["layers"]):
        out.append(_layer("block%d" % i, block, _self_attn_flops(s, d, d) + _ffn_flops(s, d, 4 * d), s * d))
    out.append(_layer("final_norm", 2 * d, 0, s * d))
    out.append(_layer("lm_head", 0, 2 * s * d * v, s * v))        # tied to wte
    return out


def layers_t5(c, s):
    d, f, v = c["d"], c["ffn"], c["vocab"]
    inner = c["heads"] * c["d_kv"]
    bias = c["buckets"] * c["heads"]                                # relative attention bias
    attn = 4 * d * inner + d                                        # q,k,v,o (no biases) + norm
    ffn = 2 * d * f + d
    out = [_layer("embed", v * d, 0, s * d)]                         # owns the shared embedding
    for i in range(c["enc_layers"]):
        out.append(_layer("enc%d" % i, attn + ffn + (bias if i == 0 else 0),
                          _self_attn_flops(s, d, inner) + _ffn_flops(s, d, f), s * d))
    out.append(_layer("enc_final_norm", d, 0, s * d))
    # [ASSUMPTION] 128 decoder tokens, one pass; a cut inside the decoder carries decoder
    # state + encoder output; position biases are recomputed in each part, not sent.
    out.append(_layer("dec_embed", 0, 0, 2 * s * d))                # the shared table again
    for i in range(c["dec_layers"]):
        last = i == c["dec_layers"] - 1
        out.append(_layer("dec%d" % i, 2 * attn + ffn + (bias if i == 0 else 0),
                          _self_attn_flops(s, d, inner) + _cross_attn_flops(s, s, d, inner)
                          + _ffn_flops(s, d, f), s * d if last else 2 * s * d))
    out.append(_layer("dec_final_norm", d, 0, s * d))
    out.append(_layer("lm_head", 0, 2 * s * d * v, s * v))          # tied to the shared embedding
    return out


BUILDERS = {"roberta": layers_roberta, "albert": layers_albert, "bart": layers_bart,
            "gpt2": layers_gpt2, "t5": layers_t5}


def _split(total, weights):
    """Integer shares of total in proportion to weights (floors); the remainder goes to the
    first largest weight, so the shares sum to total exactly."""
    wsum = sum(weights)
    shares = [total * w // wsum for w in weights]
    shares[weights.index(max(weights))] += total - sum(shares)
    return shares


def _profile(key):
    with open(os.path.join(ROOT, "models", key + ".json")) as f:
        return json.load(f)


def build(key):
    """The layer profile of one model, as a dict with the file's keys, plus the check data."""
    m = CONFIGS[key]
    prof = _profile(key)
    layers = BUILDERS[m["arch"]](m["cfg"], SEQUENCE_TOKENS)
    params = [l["params"] for l in layers]
    flops = [l["flops"] for l in layers]
    wbytes = _split(prof["weights_bytes"], params)
    exec_ps = _split(round(prof["service"]["value_s"] * PS_PER_S), flops)
    total = sum(params)
    out = []
    for l, wb, ps in zip(layers, wbytes, exec_ps):
        out.append({"name": l["name"], "params": l["params"], "weights_bytes": wb,
                    "output_bytes": l["out_bytes"], "gflop": round(l["flops"] / 1e9, 9),
                    "exec_s": ps / PS_PER_S})
    desc = ("%s split into %d layers in execution order (%s ... %s) for model partitioning "
            "(Flashpoint, issue 14): one request of %d tokens, batch 1, float32, one forward pass. "
            "weights_bytes = the file size of models/%s.json x the layer's share of parameters; "
            "exec_s = its service time x the layer's share of FLOPs; output_bytes = what a cut "
            "after the layer carries. See docs/flashpoint-layers.md."
            % (prof["description"].split(",")[0], len(out), out[0]["name"], out[-1]["name"],
               SEQUENCE_TOKENS, key))
    source = ("params DERIVED, exact arithmetic on %s: %d in all, %.2f%% from Flashpoint Table 3.1's "
              "%s (measured). weights_bytes DERIVED: Table 3.1 size %d bytes (measured) split by "
              "parameter share, remainder on the largest layer. exec_s ESTIMATED: the profile's "
              "%.6f s (itself estimated or derived, docs/flashpoint-models.md) split by FLOP share "
              "(2 x matmul multiply-adds, attention scores with the sequence length; DERIVED). "
              "output_bytes DERIVED from the shapes for %d tokens [ASSUMPTION: sequence length, "
              "one forward pass]. Tied or shared weights are counted once (docs/flashpoint-layers.md)."
              % (m["cite"], total, 100.0 * (total - m["table_params"]) / m["table_params"],
                 _table_label(m["table_params"]), prof["weights_bytes"], prof["service"]["value_s"],
                 SEQUENCE_TOKENS))
    doc = {"name": key + "-layers", "model": key, "description": desc, "source": source,
           "sequence_tokens": SEQUENCE_TOKENS, "dtype_bytes": DTYPE_BYTES, "layers": out}
    return doc, {"total_params": total, "table_params": m["table_params"],
                 "file_bytes": prof["weights_bytes"], "value_s": prof["service"]["value_s"]}


def _table_label(p):
    return "~2.8B" if p == 2.8e9 else "%.0fM" % (p / 1e6)     # as Table 3.1 prints them


def render(doc):
    """Deterministic JSON: one line per layer, keys in a fixed order."""
    head = ",\n".join(" %s: %s" % (json.dumps(k), json.dumps(doc[k]))
                      for k in ("name", "model", "description", "source", "sequence_tokens", "dtype_bytes"))
    rows = ",\n".join("  " + json.dumps(l) for l in doc["layers"])
    return "{\n%s,\n \"layers\": [\n%s\n ]\n}\n" % (head, rows)


def self_check(key, doc, info):
    """Problems with one generated profile, as strings (empty when it is sound)."""
    bad = []
    dev = abs(info["total_params"] - info["table_params"]) / info["table_params"]
    if dev > TOLERANCE_TABLE:
        bad.append("%s: %d params, %.2f%% from Table 3.1" % (key, info["total_params"], 100 * dev))
    if sum(l["weights_bytes"] for l in doc["layers"]) != info["file_bytes"]:
        bad.append("%s: weights_bytes do not add up to the file size" % key)
    if abs(sum(l["exec_s"] for l in doc["layers"]) - info["value_s"]) > 1e-12:
        bad.append("%s: exec_s do not add up to the service time" % key)
    return bad


def report(results):
    print("sequence %d tokens, batch 1, float32 activations" % SEQUENCE_TOKENS)
    print("%-18s %6s %14s %8s %7s %11s %11s %7s %10s  %-22s %-26s %s"
          % ("model", "layers", "params", "table", "dev", "4xparams MB", "file MB", "file-4p",
             "exec ms", "largest layer (bytes)", "largest output (bytes)", "largest cut (bytes)"))
    for key, doc, info in results:
        L = doc["layers"]
        big = max(L, key=lambda l: l["weights_bytes"])
        bout = max(L, key=lambda l: l["output_bytes"])
        bcut = max(L[:-1], key=lambda l: l["output_bytes"])
        dev = (info["total_params"] - info["table_params"]) / info["table_params"]
        print("%-18s %6d %14d %8s %+6.2f%% %11.1f %11.1f %+7.1f %10.3f  %-22s %-26s %s"
              % (key, len(L), info["total_params"], _table_label(info["table_params"]), 100 * dev,
                 4 * info["total_params"] / 1e6, info["file_bytes"] / 1e6,
                 (info["file_bytes"] - 4 * info["total_params"]) / 1e6,
                 1e3 * sum(l["exec_s"] for l in L), "%s %d" % (big["name"], big["weights_bytes"]),
                 "%s %d" % (bout["name"], bout["output_bytes"]),
                 "%s %d" % (bcut["name"], bcut["output_bytes"])))


def main(argv):
    mode = argv[1] if len(argv) > 1 else ""
    if mode not in ("", "--check", "--report") or len(argv) > 2:
        sys.stderr.write(__doc__)
        return 2
    results, problems = [], []
    for key in ORDER:
        doc, info = build(key)
        results.append((key, doc, info))
        problems += self_check(key, doc, info)
    if mode == "--report":
        report(results)
        print("self-check: %s" % ("; ".join(problems) if problems else
                                  "params within %d%% of Table 3.1, bytes and times add up"
                                  % round(100 * TOLERANCE_TABLE)))
    differ = []
    for key, doc, _ in results:
        path = os.path.join(ROOT, "models", key + "-layers.json")
        text = render(doc)
        if mode == "--check":
            try:
                with open(path) as f:
                    same = f.read() == text
            except OSError:
                same = False
            if not same:
                differ.append(os.path.relpath(path, ROOT))
        elif mode == "":
            with open(path, "w") as f:
                f.write(text)
    for p in problems:
        sys.stderr.write("flashpoint_layers: %s\n" % p)
    for p in differ:
        sys.stderr.write("flashpoint_layers: %s differs from what the tool generates\n" % p)
    if mode == "--check" and not differ and not problems:
        print("flashpoint_layers: %d layer profiles up to date" % len(results))
    return 1 if problems or differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
