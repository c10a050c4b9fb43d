#!/usr/bin/env python3
"""The model zoo: networks as people export them from PyTorch.

Builds each model with torch / torchvision (Debian's python3-torch and
python3-torchvision), seeds its weights, exports it with torch.onnx.export
and runs it in PyTorch, writing for each model and batch size, under OUT:

    NAME-bBATCH.onnx        the exported model
    NAME-bBATCH.in-K.npy    its K-th input (named in the manifest)
    NAME-bBATCH.out.npy     PyTorch's first output on those inputs
    manifest.json           one record per model: name, batch, opset,
                            parameters, input names and files

The Go long test (tests/zoo_test.go, IPUIR_LONG_ZOO=1) compiles each for
ipu21, runs it on the simulated device with --check and compares its output
with PyTorch's; with IPUIR_ZOO_DOC=1 it rewrites docs/models.md's table.

usage: zoo.py OUT [--batch 1,4] [--only NAME,...] [--force] [--list]

A model already exported into OUT (its record in the manifest and its
files there) is kept unless --force.
"""
import argparse
import json
import math
import os
import sys

import numpy as np
import torch
import torch.nn as nn
import torchvision


def seeded_batchnorm(model, gen):
    """BatchNorm statistics as a trained model has them (torchvision's
    initial ones are mean 0, variance 1: folding them is the identity)."""
    for m in model.modules():
        if isinstance(m, (nn.BatchNorm1d, nn.BatchNorm2d)):
            with torch.no_grad():
                m.running_mean.copy_(0.1 * torch.randn(m.running_mean.shape, generator=gen))
                m.running_var.copy_(0.5 + torch.rand(m.running_var.shape, generator=gen))
                if m.affine:
                    m.weight.copy_(1 + 0.1 * torch.randn(m.weight.shape, generator=gen))
                    m.bias.copy_(0.1 * torch.randn(m.bias.shape, generator=gen))


def seeded_zero_layers(model, gen):
    """Random weights for layers initialized to zeros (torchvision's ViT
    head): their output would be zeros, and a comparison of zeros with
    zeros checks nothing."""
    for m in model.modules():
        if isinstance(m, nn.Linear) and not m.weight.detach().any():
            with torch.no_grad():
                m.weight.copy_(torch.randn(m.weight.shape, generator=gen) / m.weight.shape[1] ** 0.5)


class Encoder(nn.Module):
    """nn.TransformerEncoder over token embeddings already computed."""

    def __init__(self, d, heads, layers, ff):
        super().__init__()
        layer = nn.TransformerEncoderLayer(d, heads, ff, dropout=0.0, batch_first=True)
        self.enc = nn.TransformerEncoder(layer, layers)

    def forward(self, x):
        return self.enc(x)


class Block(nn.Module):
    """A transformer block written out as BERT and GPT-2 write it: q, k, v
    projections, scaled scores plus an additive mask, softmax, output
    projection, residual and LayerNorm (post-norm for BERT, pre-norm for
    GPT-2), and a GELU MLP."""

    def __init__(self, d, heads, ff, pre_norm):
        super().__init__()
        self.h, self.dh, self.pre = heads, d // heads, pre_norm
        self.q, self.k, self.v, self.o = (nn.Linear(d, d) for _ in range(4))
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.fc1, self.fc2 = nn.Linear(d, ff), nn.Linear(ff, d)

    def attend(self, x, bias):
        b, t, d = x.shape
        split = lambda y: y.view(b, t, self.h, self.dh).transpose(1, 2)
        q, k, v = split(self.q(x)), split(self.k(x)), split(self.v(x))
        s = q @ k.transpose(-1, -2) / math.sqrt(self.dh) + bias
        y = torch.softmax(s, dim=-1) @ v
        return self.o(y.transpose(1, 2).reshape(b, t, d))

    def mlp(self, x):
        return self.fc2(nn.functional.gelu(self.fc1(x)))

    def forward(self, x, bias):
        if self.pre:
            x = x + self.attend(self.ln1(x), bias)
            return x + self.mlp(self.ln2(x))
        x = self.ln1(x + self.attend(x, bias))
        return self.ln2(x + self.mlp(x))


class Bert(nn.Module):
    """BERT-base width (768, 12 heads, 3072), 4 layers: token, position and
    type embeddings, an attention mask as BERT turns it into a bias, a
    pooler."""

    def __init__(self, vocab=1000, d=768, heads=12, ff=3072, layers=4, tokens=128):
        super().__init__()
        self.tok, self.pos, self.typ = nn.Embedding(vocab, d), nn.Embedding(tokens, d), nn.Embedding(2, d)
        self.ln = nn.LayerNorm(d)
        self.blocks = nn.ModuleList(Block(d, heads, ff, False) for _ in range(layers))
        self.pool = nn.Linear(d, d)

    def forward(self, input_ids, attention_mask):
        t = input_ids.shape[1]
        pos = torch.arange(t).unsqueeze(0)
        x = self.ln(self.tok(input_ids) + self.pos(pos) + self.typ(torch.zeros_like(input_ids)))
        bias = (1.0 - attention_mask[:, None, None, :].float()) * -10000.0
        for b in self.blocks:
            x = b(x, bias)
        return torch.tanh(self.pool(x[:, 0]))


class GPT2(nn.Module):
    """GPT-2-small width (768, 12 heads, 3072), 4 pre-norm blocks with a
    causal mask, final LayerNorm and a tied LM head over a small vocab."""

    def __init__(self, vocab=1000, d=768, heads=12, ff=3072, layers=4, tokens=128):
        super().__init__()
        self.tok, self.pos = nn.Embedding(vocab, d), nn.Embedding(tokens, d)
        self.blocks = nn.ModuleList(Block(d, heads, ff, True) for _ in range(layers))
        self.ln = nn.LayerNorm(d)
        self.register_buffer("causal", torch.triu(torch.full((tokens, tokens), -10000.0), 1))

    def forward(self, input_ids):
        t = input_ids.shape[1]
        x = self.tok(input_ids) + self.pos(torch.arange(t).unsqueeze(0))
        for b in self.blocks:
            x = b(x, self.causal[:t, :t])
        return self.ln(x) @ self.tok.weight.t()


class Recurrent(nn.Module):
    def __init__(self, cell, d=256, layers=2):
        super().__init__()
        self.rnn = cell(d, d, layers, batch_first=True)
        self.head = nn.Linear(d, 10)

    def forward(self, x):
        y, _ = self.rnn(x)
        return self.head(y[:, -1])


class UNet(nn.Module):
    """A small U-Net: two levels down (conv, batch norm, ReLU, max pool),
    a bottleneck, up by a transposed conv and by nearest upsampling, skip
    connections concatenated, a 1×1 conv head."""

    def __init__(self, c=16):
        super().__init__()

        def block(i, o):
            return nn.Sequential(nn.Conv2d(i, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU(),
                                 nn.Conv2d(o, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU())

        self.d1, self.d2, self.mid = block(3, c), block(c, 2 * c), block(2 * c, 4 * c)
        self.pool = nn.MaxPool2d(2)
        self.up2 = nn.ConvTranspose2d(4 * c, 2 * c, 2, stride=2)
        self.u2 = block(4 * c, 2 * c)
        self.up1 = nn.Upsample(scale_factor=2, mode="nearest")
        self.u1 = block(3 * c, c)
        self.head = nn.Conv2d(c, 2, 1)

    def forward(self, x):
        a = self.d1(x)
        b = self.d2(self.pool(a))
        m = self.mid(self.pool(b))
        y = self.u2(torch.cat([self.up2(m), b], 1))
        y = self.u1(torch.cat([self.up1(y), a], 1))
        return self.head(y)


def image(batch, size=224):
    return {"input": torch.randn(batch, 3, size, size)}


def tokens(batch, gen, masked=True):
    ids = torch.randint(0, 1000, (batch, 128), generator=gen)
    if not masked:
        return {"input_ids": ids}
    mask = torch.ones(batch, 128, dtype=torch.int64)
    mask[:, 100:] = 0  # the last 28 tokens are padding
    return {"input_ids": ids, "attention_mask": mask}


# name: (builder, inputs(batch, generator), opset)
MODELS = {
    "resnet18": (lambda: torchvision.models.resnet18(), lambda b, g: image(b), 13),
    "resnet50": (lambda: torchvision.models.resnet50(), lambda b, g: image(b), 13),
    "mobilenet_v2": (lambda: torchvision.models.mobilenet_v2(), lambda b, g: image(b), 13),
    "mobilenet_v3_small": (lambda: torchvision.models.mobilenet_v3_small(), lambda b, g: image(b), 13),
    "efficientnet_b0": (lambda: torchvision.models.efficientnet_b0(), lambda b, g: image(b), 13),
    "vit_b_16": (lambda: torchvision.models.vit_b_16(), lambda b, g: image(b), 13),
    "transformer_encoder": (lambda: Encoder(256, 8, 2, 1024), lambda b, g: {"x": torch.randn(b, 128, 256)}, 13),
    "bert_base_4": (lambda: Bert(), lambda b, g: tokens(b, g), 13),
    "gpt2_4": (lambda: GPT2(), lambda b, g: tokens(b, g, masked=False), 13),
    "lstm": (lambda: Recurrent(nn.LSTM), lambda b, g: {"x": torch.randn(b, 32, 256)}, 13),
    "gru": (lambda: Recurrent(nn.GRU), lambda b, g: {"x": torch.randn(b, 32, 256)}, 13),
    "unet": (lambda: UNet(), lambda b, g: image(b, 128), 13),
}


def export(name, batch, out):
    build, inputs, opset = MODELS[name]
    torch.manual_seed(0)
    gen = torch.Generator().manual_seed(1)
    model = build()
    seeded_batchnorm(model, gen)
    seeded_zero_layers(model, gen)
    model.eval()
    args = inputs(batch, gen)
    stem = os.path.join(out, f"{name}-b{batch}")
    # Exported with gradients enabled: under no_grad, eval-mode attention
    # takes PyTorch's fused fast path (aten::_native_multi_head_attention),
    # which torch.onnx cannot export; the two compute the same function.
    torch.onnx.export(model, tuple(args.values()), stem + ".onnx", opset_version=opset,
                      input_names=list(args), output_names=["output"], do_constant_folding=True)
    with torch.no_grad():
        want = model(*args.values())
    files = {}
    for k, (n, v) in enumerate(args.items()):
        np.save(f"{stem}.in-{k}.npy", v.numpy())
        files[n] = os.path.basename(f"{stem}.in-{k}.npy")
    np.save(stem + ".out.npy", want.numpy())
    return {"name": name, "batch": batch, "opset": opset, "model": os.path.basename(stem + ".onnx"),
            "parameters": sum(p.numel() for p in model.parameters()), "inputs": files,
            "output": os.path.basename(stem + ".out.npy")}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("--batch", default="1,4")
    ap.add_argument("--only", default="")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--force", action="store_true", help="export again models already in OUT")
    a = ap.parse_args()
    if a.list:
        print("\n".join(MODELS))
        return
    names = [n for n in a.only.split(",") if n] or list(MODELS)
    for n in names:
        if n not in MODELS:
            sys.exit(f"zoo.py: no model named {n!r} (known: {', '.join(MODELS)})")
    os.makedirs(a.out, exist_ok=True)
    # The manifest keeps the records of models exported earlier into OUT
    # (--only adds to it), each model and batch once.
    path = os.path.join(a.out, "manifest.json")
    records = {}
    if os.path.exists(path):
        with open(path) as f:
            records = {(r["name"], r["batch"]): r for r in json.load(f)}
    for n in names:
        for b in (int(x) for x in a.batch.split(",")):
            r = records.get((n, b))
            kept = r and all(os.path.exists(os.path.join(a.out, f)) for f in [r["model"], r["output"], *r["inputs"].values()])
            if a.force or not kept:
                records[(n, b)] = export(n, b, a.out)
    order = list(MODELS)
    with open(path + ".tmp", "w") as f:
        json.dump(sorted(records.values(), key=lambda r: (order.index(r["name"]), r["batch"])), f, indent=1)
    os.replace(path + ".tmp", path)


if __name__ == "__main__":
    main()
