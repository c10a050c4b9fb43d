"""Localise a model's numerics against PyTorch, layer by layer.

``Model.dump_values`` (``ipu-run --dump-values``) writes every value a run
read back: each op's (a checkpoint, named after the ONNX node it was
imported from) and each output. ``against_torch`` runs the same
``torch.nn.Module`` on the same inputs with a forward hook on every
submodule, matches each module to the last ONNX node of its scope (the
names ``torch.onnx.export`` gives: module ``layer1.0.conv1`` is scope
``/layer1/layer1.0/conv1/``), and compares, in the order the modules
finished, the device's value with PyTorch's. The first module whose
largest error exceeds the tolerance, relative to its largest magnitude, is
where the numbers went wrong.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

__all__ = ["Values", "Row", "Localisation", "load_values", "onnx_scope", "against_torch"]


class Values:
    """The values of a ``--dump-values`` folder, in program order: ``names``,
    and each array by name (``values[name]``)."""

    def __init__(self, directory: str):
        with open(os.path.join(directory, "index.json")) as f:
            index = json.load(f)
        self.directory = directory
        self.entries: List[Dict[str, Any]] = index["values"]
        self.names = list(dict.fromkeys(e["name"] for e in self.entries))
        self._arrays: Dict[str, np.ndarray] = {}

    def __getitem__(self, name: str) -> np.ndarray:
        """The value of the node (or output) ``name``: where one ONNX node
        was imported as several ops (a Gemm as a matmul and an add), each
        has an entry, and the last is the node's output."""
        if name not in self._arrays:
            entry = [e for e in self.entries if e["name"] == name][-1]
            self._arrays[name] = np.load(os.path.join(self.directory, entry["file"]))
        return self._arrays[name]

    def __contains__(self, name: str) -> bool:
        return name in self.names

    def __len__(self) -> int:
        return len(self.entries)


def load_values(directory: str) -> Values:
    """The values ``ipu-run --dump-values DIR`` wrote."""
    return Values(directory)


def _unqualified(qualified: str) -> str:
    """A module's own part of its scope: from its last non-numeric atom on
    (``layer1.0.conv1`` → ``conv1``, ``layer1.0`` → ``layer1.0``), as
    torch.onnx.export names it."""
    atoms = qualified.split(".")
    for i in range(len(atoms) - 1, -1, -1):
        if not atoms[i].isdigit():
            return ".".join(atoms[i:])
    return qualified


def onnx_scope(qualified: str) -> str:
    """The node-name scope torch.onnx.export gives module ``qualified`` when
    every module above it is called in turn (a ModuleList, never called,
    adds no level; against_torch follows the calls themselves):
    ``layer1.0.conv1`` → ``/layer1/layer1.0/conv1/``."""
    atoms = qualified.split(".")
    return "/" + "/".join(_unqualified(".".join(atoms[: i + 1])) for i in range(len(atoms))) + "/"


@dataclass
class Row:
    """One module's comparison: its qualified name, the ONNX node whose
    value stands for its output, the largest absolute error, the largest
    magnitude of PyTorch's value, their ratio, and whether it is within
    the tolerance."""
    module: str
    node: str
    max_abs_error: float
    max_magnitude: float
    relative: float
    ok: bool


@dataclass
class Localisation:
    rows: List[Row]
    tolerance: float

    @property
    def first_bad(self) -> Optional[Row]:
        """The first module, in the order the modules finished, whose
        error exceeds the tolerance; None when every one is within it."""
        return next((r for r in self.rows if not r.ok), None)

    def __str__(self) -> str:
        lines = [f"{'module':<30} {'node':<34} {'max |err|':>10} {'max |y|':>10} {'relative':>9}"]
        for r in self.rows:
            mark = "" if r.ok else "  <- over the tolerance %g" % self.tolerance
            lines.append(f"{r.module:<30} {r.node:<34} {r.max_abs_error:>10.3g} {r.max_magnitude:>10.3g} {r.relative:>9.2e}{mark}")
        bad = self.first_bad
        lines.append(f"{len(self.rows)} modules compared; " +
                     (f"the first over the tolerance: {bad.module} ({bad.node})" if bad else "every one within the tolerance"))
        return "\n".join(lines)


def against_torch(module: Any, inputs: Sequence[Any], values: Any, tolerance: float = 1e-3) -> Localisation:
    """Compare ``values`` (a ``Values`` or a dump folder) with ``module``'s
    own on ``inputs``, module by module (see the package doc)."""
    import torch

    if not isinstance(values, Values):
        values = Values(values)
    # Each called module's scope is the chain of the modules called above
    # it, each named by its unqualified name.
    outputs: List[Tuple[str, str, Any]] = []
    stack: List[str] = []
    hooks = []

    def enter(name):
        return lambda m, i: stack.append(_unqualified(name))

    def leave(name):
        def hook(m, i, o):
            outputs.append((name, "/" + "/".join(stack) + "/", o[0] if isinstance(o, tuple) and o else o))
            stack.pop()
        return hook

    for name, sub in module.named_modules():
        if name == "":
            continue
        hooks.append(sub.register_forward_pre_hook(enter(name)))
        hooks.append(sub.register_forward_hook(leave(name)))
    try:
        # With gradients on, PyTorch's fused fast paths (a Transformer
        # layer's in eval mode) step aside and every submodule is called,
        # as the export traced them.
        with torch.enable_grad():
            module.eval()(*[torch.as_tensor(x) for x in inputs])
    finally:
        for h in hooks:
            h.remove()
    checkpoints = list(dict.fromkeys(e["name"] for e in values.entries if e["kind"] == "checkpoint"))
    rows = []
    for name, scope, out in outputs:
        if not isinstance(out, torch.Tensor):
            continue
        nodes = [n for n in checkpoints if n.startswith(scope)]
        if not nodes:
            continue  # nothing of it was computed (Identity, Dropout)
        node = nodes[-1]
        want = out.detach().cpu().numpy().astype(np.float64)
        got = values[node].astype(np.float64)
        if got.size != want.size:
            continue  # the scope's last node is not the module's output
        got = got.reshape(want.shape)
        err = float(np.max(np.abs(got - want))) if want.size else 0.0
        mag = float(np.max(np.abs(want))) if want.size else 0.0
        rel = err / mag if mag > 0 else err
        rows.append(Row(name, node, err, mag, rel, bool(rel <= tolerance)))
    return Localisation(rows, tolerance)
