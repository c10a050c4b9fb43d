"""Compile ONNX and PyTorch models with ipuir and run them on its simulated IPU.

The package is a front end to ipuir's Go tools: ``compile`` runs
``ipu-translate --emit-package`` and returns a ``Model`` whose ``run`` and
``check`` run ``ipu-run`` on NumPy arrays. A tool's diagnostic becomes an
``IpuirError`` whose ``node`` is the ONNX node it names, when it names one.

The tools are found, in order: in the folder ``$IPUIR_BIN``; on ``PATH``;
or, when this package is imported from an ipuir source tree, built from it
with ``go build`` into ``$XDG_CACHE_HOME/ipuir/tools`` (``~/.cache`` when
unset; Go's build cache makes rebuilding an unchanged tree quick).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

__all__ = ["compile", "Model", "Stream", "CheckResult", "IpuirError", "tool"]
__version__ = "0.1.0"

_TOOLS = ("ipu-translate", "ipu-run")


class IpuirError(Exception):
    """A tool refused its input or failed.

    ``message`` is the diagnostic's first line without its location;
    ``node`` and ``op_type`` the ONNX node and operator it leads with (an
    imported model's diagnostics start ``NODE (OP) in FILE, node N:``), or
    None; ``stderr`` the tool's whole standard error; ``returncode`` its exit
    status.
    """

    def __init__(self, message: str, stderr: str = "", returncode: int = 1,
                 node: Optional[str] = None, op_type: Optional[str] = None):
        super().__init__(message)
        self.message = message
        self.stderr = stderr
        self.returncode = returncode
        self.node = node
        self.op_type = op_type


# "NODE (OP) in FILE.onnx, node N: error: MESSAGE" (ir.ModelNodeOf).
_NODE_DIAGNOSTIC = re.compile(r"^(?P<node>.+?) \((?P<op>[A-Za-z0-9_.]+)\) in .+?, node \d+: error: (?P<msg>.*)$")
# "FILE:LINE:COL: error: MESSAGE", or "TOOL: MESSAGE".
_LOCATED = re.compile(r"^.*?:\d+:\d+: error: (?P<msg>.*)$")


def _error_from(stderr: str, returncode: int) -> IpuirError:
    lines = [l for l in stderr.splitlines() if l.strip()]
    for line in lines:
        m = _NODE_DIAGNOSTIC.match(line)
        if m:
            return IpuirError(m.group("msg"), stderr, returncode, m.group("node"), m.group("op"))
    for line in lines:
        m = _LOCATED.match(line)
        if m:
            return IpuirError(m.group("msg"), stderr, returncode)
    first = lines[0] if lines else f"the tool exited with status {returncode}"
    return IpuirError(first, stderr, returncode)


def _repository() -> Optional[Path]:
    """The ipuir source tree this package was imported from, if any."""
    root = Path(__file__).resolve().parent.parent.parent
    mod = root / "go.mod"
    try:
        if mod.is_file() and mod.read_text().startswith("module github.com/ipuir/ipuir"):
            return root
    except OSError:
        pass
    return None


_resolved: Dict[str, str] = {}


def tool(name: str) -> str:
    """The path of the ipuir tool ``name`` (``ipu-translate``, ``ipu-run``)."""
    if name in _resolved:
        return _resolved[name]
    found = None
    bin_dir = os.environ.get("IPUIR_BIN")
    if bin_dir:
        candidate = Path(bin_dir) / name
        if not candidate.is_file():
            raise IpuirError(f"IPUIR_BIN is {bin_dir}, which holds no {name}")
        found = str(candidate)
    if found is None:
        found = shutil.which(name)
    if found is None:
        found = _build(name)
    _resolved[name] = found
    return found


def _build(name: str) -> str:
    repo = _repository()
    if repo is None:
        raise IpuirError(f"{name} is not on PATH: install ipuir's tools (go install ./tools/... in its repository) "
                         "or set IPUIR_BIN to the folder that holds them")
    if shutil.which("go") is None:
        raise IpuirError(f"{name} is not on PATH and there is no go to build it from {repo}")
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "ipuir" / "tools"
    cache.mkdir(parents=True, exist_ok=True)
    out = cache / name
    # Built under a temporary name and renamed, so that a concurrent build
    # or a reader never sees half a binary.
    fd, tmp = tempfile.mkstemp(prefix=name + ".", dir=cache)
    os.close(fd)
    try:
        done = subprocess.run(["go", "build", "-o", tmp, "./tools/" + name], cwd=repo,
                              capture_output=True, text=True)
        if done.returncode != 0:
            raise IpuirError(f"building {name} from {repo} failed", done.stderr, done.returncode)
        os.replace(tmp, out)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return str(out)


def _run(args: Sequence[str], verdict: bool = False) -> subprocess.CompletedProcess:
    """Runs a tool; a failure raises IpuirError, except, with verdict, a
    check that ran and printed its numericalTest line (a FAIL exits 1)."""
    done = subprocess.run([tool(args[0]), *args[1:]], capture_output=True, text=True)
    if done.returncode != 0 and not (verdict and done.returncode == 1 and "numericalTest=" in done.stdout):
        raise _error_from(done.stderr, done.returncode)
    return done


_DTYPES = {"f16": np.float16, "f32": np.float32, "f64": np.float64, "bf16": None, "i1": np.bool_,
           "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
           "ui8": np.uint8, "ui16": np.uint16, "ui32": np.uint32, "ui64": np.uint64}


@dataclass(frozen=True)
class Stream:
    """An input or output of a compiled model: its name (an ONNX model's
    input or output name), element type and shape."""
    name: str
    dtype: Any
    shape: Tuple[int, ...]


# '  input #0 "x": f16 [8 16] in ...' (ipu-translate --dump-package).
_STREAM = re.compile(r'^\s*(?P<kind>input|output) #(?P<index>\d+) "(?P<name>(?:[^"\\]|\\.)*)": (?P<elem>\w+) \[(?P<dims>[0-9 ]*)\]')


def _streams(package: str) -> Tuple[List[Stream], List[Stream]]:
    dump = _run(["ipu-translate", "--dump-package", package]).stdout
    inputs: List[Stream] = []
    outputs: List[Stream] = []
    for line in dump.splitlines():
        m = _STREAM.match(line)
        if not m:
            continue
        dims = tuple(int(d) for d in m.group("dims").split())
        s = Stream(m.group("name").replace('\\"', '"'), _DTYPES.get(m.group("elem")), dims)
        (inputs if m.group("kind") == "input" else outputs).append(s)
    if not outputs:
        raise IpuirError(f"{package} lists no outputs", dump)
    return inputs, outputs


@dataclass
class CheckResult:
    """What ``ipu-run --check`` found: whether every compared element lay
    within its derived bound, how many elements it compared (outputs and
    checkpoints, end to end and locally), the largest absolute error end to
    end and the largest error over its bound (1 is at the bound)."""
    passed: bool
    compared: int
    max_abs_error: float
    max_error_to_bound: float
    line: str
    outputs: Dict[str, np.ndarray] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return self.passed


def _field(line: str, key: str) -> Optional[str]:
    m = re.search(r"(?:^|\s)" + re.escape(key) + r"=(\S+)", line)
    return m.group(1) if m else None


class Model:
    """A compiled model: an application package on disk and its streams."""

    def __init__(self, package: str, target: str, owned_dir: Optional[tempfile.TemporaryDirectory] = None):
        self.path = package
        self.target = target
        self.inputs, self.outputs = _streams(package)
        self.cycles: Optional[int] = None
        self._dir = owned_dir  # removed with the model

    def __repr__(self) -> str:
        ins = ", ".join(f"{s.name}: {s.shape}" for s in self.inputs)
        outs = ", ".join(f"{s.name}: {s.shape}" for s in self.outputs)
        return f"<ipuir.Model {self.path} for {self.target}: ({ins}) -> ({outs})>"

    def _arrays(self, args: Sequence[Any], named: Mapping[str, Any]) -> List[np.ndarray]:
        if len(args) > len(self.inputs):
            raise TypeError(f"{len(args)} inputs given, the model takes {len(self.inputs)}")
        given: Dict[str, Any] = {s.name: a for s, a in zip(self.inputs, args)}
        for name, a in named.items():
            if name not in {s.name for s in self.inputs}:
                raise TypeError(f"the model has no input {name!r}; its inputs are {[s.name for s in self.inputs]}")
            if name in given:
                raise TypeError(f"input {name!r} given twice")
            given[name] = a
        arrays = []
        for s in self.inputs:
            if s.name not in given:
                raise TypeError(f"input {s.name!r} ({s.shape}) is missing")
            a = np.asarray(given[s.name])
            if hasattr(given[s.name], "detach"):  # a torch tensor
                a = given[s.name].detach().cpu().numpy()
            if tuple(a.shape) != s.shape:
                raise ValueError(f"input {s.name!r} has shape {tuple(a.shape)}; the model takes {s.shape}")
            if s.dtype is not None and a.dtype != s.dtype:
                a = a.astype(s.dtype)
            arrays.append(a)
        return arrays

    def _invoke(self, args: Sequence[Any], named: Mapping[str, Any], extra: Sequence[str]) -> Tuple[Dict[str, np.ndarray], str]:
        arrays = self._arrays(args, named)
        with tempfile.TemporaryDirectory(prefix="ipuir-run-") as d:
            ins = []
            for i, a in enumerate(arrays):
                p = os.path.join(d, f"in{i}.npy")
                np.save(p, a)
                ins.append(p)
            outs = [os.path.join(d, f"out{i}.npy") for i in range(len(self.outputs))]
            cmd = ["ipu-run", self.path, "--outputs", ",".join(outs), "--report-cycles", *extra]
            if ins:
                cmd[2:2] = ["--inputs", ",".join(ins)]
            done = _run(cmd, verdict="--check" in extra)
            results = {s.name: np.load(p) for s, p in zip(self.outputs, outs) if os.path.exists(p)}
        cycles = _field(done.stdout, "total_cycles")
        if cycles is not None:
            self.cycles = int(cycles)
        return results, done.stdout

    def run(self, *args: Any, **named: Any) -> Dict[str, np.ndarray]:
        """Run the model on the simulated device: inputs in order or by
        name (NumPy arrays, or torch tensors), converted to the model's
        element types; returns the outputs by name. ``cycles`` is then the
        run's simulated cycle count."""
        results, _ = self._invoke(args, named, [])
        return results

    def check(self, *args: Any, **named: Any) -> CheckResult:
        """Run as ``run`` does and compare every element of every output and
        checkpoint with the reference interpreter on the same inputs, each
        within its derived error bound (``ipu-run --check``). A FAIL is a
        result with ``passed`` false, not an exception."""
        results, stdout = self._invoke(args, named, ["--check"])
        line = next((l for l in stdout.splitlines() if "numericalTest=" in l), "")
        if not line:
            raise IpuirError("ipu-run --check printed no numericalTest line", stdout)
        return CheckResult(passed=_field(line, "numericalTest") == "PASS",
                           compared=int(_field(line, "compared") or 0),
                           max_abs_error=float(_field(line, "maximumAbsoluteError") or "nan"),
                           max_error_to_bound=float(_field(line, "maximumErrorToBound") or "nan"),
                           line=line, outputs=results)

    def dump_values(self, directory: Union[str, os.PathLike], *args: Any, **named: Any):
        """Run the model and write every value the run reads back into the
        new folder ``directory`` (``ipu-run --dump-values``): each op's
        value, named after its ONNX node, and each output. Returns them
        (``ipuir.compare.Values``); ``ipuir.compare.against_torch`` finds
        the first layer that disagrees with PyTorch."""
        from .compare import Values

        self._invoke(args, named, ["--dump-values", os.fspath(directory)])
        return Values(os.fspath(directory))

    def report(self, path: Union[str, os.PathLike], *args: Any, **named: Any) -> str:
        """Run the model and write the HTML report of the package with the
        run's cycles to ``path``; returns the path."""
        self._invoke(args, named, ["--report", os.fspath(path)])
        return os.fspath(path)


def _export_torch(module: Any, example: Any, path: str, opset: int) -> None:
    import torch  # only when a module is given

    if example is None:
        raise TypeError("a torch.nn.Module needs example inputs (inputs=...) to be exported")
    if not isinstance(example, (tuple, list)):
        example = (example,)
    example = tuple(torch.as_tensor(e) for e in example)
    module.eval()
    torch.onnx.export(module, example, path, opset_version=opset,
                      input_names=[f"input{i}" if len(example) > 1 else "input" for i in range(len(example))],
                      output_names=["output"])


def compile(model: Any, target: str = "ipu21", inputs: Any = None, *, options: Iterable[str] = (),
            output: Optional[Union[str, os.PathLike]] = None, opset: int = 17) -> Model:
    """Compile ``model`` for ``target`` into an application package.

    ``model`` is a path to an ONNX model (or a tensor-level ``.ipuir``
    module), the bytes of an ONNX model, or a ``torch.nn.Module``, which is
    exported with ``torch.onnx.export`` at ``opset`` on the example
    ``inputs`` (a tensor or a tuple of them; its inputs are then named
    ``input`` or ``input0``, ``input1``, ... and its output ``output``).
    ``options`` are further ``ipu-translate`` flags
    (``["--target-option=io-tiles=92"]``). The package is written to
    ``output``, or to a temporary folder that lives as long as the model.
    A refusal raises ``IpuirError`` naming the ONNX node when the
    diagnostic does.
    """
    owned = None
    if output is None:
        owned = tempfile.TemporaryDirectory(prefix="ipuir-")
        output = os.path.join(owned.name, "model.ipupkg")
    output = os.fspath(output)
    with tempfile.TemporaryDirectory(prefix="ipuir-src-") as d:
        if isinstance(model, (bytes, bytearray)):
            source = os.path.join(d, "model.onnx")
            with open(source, "wb") as f:
                f.write(model)
        elif isinstance(model, (str, os.PathLike)):
            source = os.fspath(model)
            if not os.path.exists(source):
                raise IpuirError(f"{source}: no such file")
        elif hasattr(model, "forward") and hasattr(model, "eval"):
            source = os.path.join(d, "model.onnx")
            _export_torch(model, inputs, source, opset)
        else:
            raise TypeError(f"compile takes an ONNX path, ONNX bytes or a torch.nn.Module, not {type(model).__name__}")
        _run(["ipu-translate", "--emit-package", source, f"--target={target}", *options, "-o", output])
    return Model(output, target, owned)
