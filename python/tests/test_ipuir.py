"""Tests of the Python front end: it drives the real tools on real models.

Run from the repository: ``python3 -m pytest python/tests`` (the package
is imported from the source tree; the tools are taken from PATH or built
from it). The torch tests skip without PyTorch.
"""

import builtins
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))

import ipuir  # noqa: E402

TINY = str(ROOT / "examples" / "attention-tiny.onnx")

try:
    import torch
except ImportError:  # the torch tests skip
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed (Debian python3-torch)")


def tiny_inputs(model, seed=0):
    rng = np.random.default_rng(seed)
    return {s.name: (rng.standard_normal(s.shape) / 4).astype(s.dtype) for s in model.inputs}


@pytest.fixture(scope="module")
def tiny():
    return ipuir.compile(TINY, target="test16")


def test_streams_are_the_onnx_models(tiny):
    assert [s.name for s in tiny.inputs] == ["x", "wq", "wk", "wv", "wo"]
    assert [(s.name, s.shape, s.dtype) for s in tiny.outputs] == [("out", (8, 16), np.float16)]
    assert os.path.exists(tiny.path) and tiny.target == "test16"


def test_run_returns_outputs_by_name_and_counts_cycles(tiny):
    ins = tiny_inputs(tiny)
    out = tiny.run(**ins)
    assert set(out) == {"out"} and out["out"].shape == (8, 16) and out["out"].dtype == np.float16
    assert np.isfinite(out["out"]).all() and np.abs(out["out"]).max() > 0
    assert tiny.cycles and tiny.cycles > 0
    # Positional inputs, in the model's order, give the same values.
    again = tiny.run(*[ins[s.name] for s in tiny.inputs])
    np.testing.assert_array_equal(again["out"], out["out"])


def test_check_compares_every_element(tiny):
    ins = tiny_inputs(tiny, seed=1)
    result = tiny.check(**ins)
    assert result.passed and bool(result)
    assert result.compared > 0 and 0 <= result.max_error_to_bound <= 1
    np.testing.assert_array_equal(result.outputs["out"], tiny.run(**ins)["out"])


def test_report_writes_html(tiny, tmp_path):
    path = tiny.report(tmp_path / "tiny.html", **tiny_inputs(tiny))
    text = Path(path).read_text()
    assert "<html" in text.lower() and "test16" in text


def test_bad_inputs_are_python_errors(tiny):
    ins = tiny_inputs(tiny)
    with pytest.raises(ValueError, match="has shape"):
        tiny.run(**{**ins, "x": np.zeros((4, 16), np.float16)})
    with pytest.raises(TypeError, match="no input 'y'"):
        tiny.run(**ins, y=np.zeros(1))
    del ins["wo"]
    with pytest.raises(TypeError, match="'wo'.*missing"):
        tiny.run(**ins)


def test_a_refusal_is_an_exception(tmp_path):
    with pytest.raises(ipuir.IpuirError) as e:
        ipuir.compile(b"this is not an ONNX model", target="test16")
    assert e.value.returncode != 0 and e.value.stderr
    with pytest.raises(ipuir.IpuirError, match="no such file"):
        ipuir.compile(str(tmp_path / "missing.onnx"))
    with pytest.raises(TypeError):
        ipuir.compile(42)


def test_an_unknown_target_is_named(tmp_path):
    with pytest.raises(ipuir.IpuirError) as e:
        ipuir.compile(TINY, target="ipu99")
    assert "ipu99" in str(e.value)


def test_tools_from_ipuir_bin(monkeypatch, tmp_path):
    monkeypatch.setattr(ipuir, "_resolved", {})
    monkeypatch.setenv("IPUIR_BIN", str(tmp_path))
    with pytest.raises(ipuir.IpuirError, match="holds no ipu-translate"):
        ipuir.tool("ipu-translate")


@pytest.mark.skipif(shutil.which("go") is None, reason="no go to build the tools with")
def test_tools_built_from_the_source_tree(monkeypatch, tmp_path):
    # Neither IPUIR_BIN nor PATH has them: the package builds them from the
    # tree it was imported from, into the cache folder.
    monkeypatch.setattr(ipuir, "_resolved", {})
    monkeypatch.delenv("IPUIR_BIN", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    go = shutil.which("go")
    monkeypatch.setenv("PATH", os.path.dirname(go))
    path = ipuir.tool("ipu-run")
    assert path == str(tmp_path / "ipuir" / "tools" / "ipu-run")
    assert subprocess.run([path, "--help"], capture_output=True).returncode == 0


@needs_torch
def test_a_torch_module_agrees_with_pytorch():
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 10))
    x = torch.randn(4, 32)
    model = ipuir.compile(net, target="test16", inputs=(x,))
    assert [s.name for s in model.inputs] == ["input"] and model.outputs[0].name == "output"
    got = model.run(input=x)["output"]
    want = net(x).detach().numpy()
    assert got.shape == want.shape
    assert np.abs(got - want).max() <= 1e-4 * np.abs(want).max()
    assert model.check(x).passed


@needs_torch
def test_a_refused_node_is_named():
    # A 2,048×2,048 f32 weight (16 MiB) does not fit test16's 1 MiB: the
    # refusal names the ONNX node that holds it.
    net = torch.nn.Sequential(torch.nn.Linear(2048, 2048))
    with pytest.raises(ipuir.IpuirError) as e:
        ipuir.compile(net, target="test16", inputs=(torch.randn(1, 2048),))
    assert e.value.node is not None and e.value.op_type is not None, e.value.stderr
    assert e.value.node.startswith("/"), e.value.node


def test_the_readme_example_runs(monkeypatch, capsys):
    # The README's Python block, run as written from the repository's root.
    text = (ROOT / "README.md").read_text()
    start = text.index("```python\n", text.index("From Python")) + len("```python\n")
    block = text[start:text.index("```", start)]
    monkeypatch.chdir(ROOT)
    exec(builtins.compile(block, "README.md", "exec"), {})
    printed = capsys.readouterr().out.split()
    assert printed[:2] == ["(8,", "16)"] and int(printed[2]) > 0 and printed[3] == "True", printed


if torch is not None:
    class _Block(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(32, 32)
            self.act = torch.nn.ReLU()

        def forward(self, x):
            return self.act(self.fc(x)) + x


def _net():
    torch.manual_seed(1)
    return torch.nn.Sequential(torch.nn.Linear(16, 32), _Block(), torch.nn.Sequential(_Block(), torch.nn.Linear(32, 8))).eval()


@needs_torch
def test_dump_values_agree_with_pytorch_layer_by_layer(tmp_path):
    from ipuir.compare import against_torch, onnx_scope

    assert onnx_scope("layer1.0.conv1") == "/layer1/layer1.0/conv1/"
    net, x = _net(), torch.randn(4, 16)
    model = ipuir.compile(net, target="test16", inputs=(x,))
    values = model.dump_values(tmp_path / "values", x)
    assert "/1/fc/Gemm" in values and values["/1/fc/Gemm"].shape == (4, 32)
    report = against_torch(net, [x], values)
    assert len(report.rows) >= 6 and report.first_bad is None, str(report)
    # The folder is new: a second dump into it is refused.
    with pytest.raises(ipuir.IpuirError, match="not an empty folder"):
        model.dump_values(tmp_path / "values", x)


@needs_torch
def test_a_corrupted_layer_is_found_by_name(tmp_path):
    # The model as exported, but with the first block's weight scaled in
    # the ONNX file: the device computes that layer wrong and every one
    # after it. The comparison names the layer, and its ONNX node, first.
    onnx = pytest.importorskip("onnx")
    from onnx import numpy_helper
    from ipuir.compare import against_torch

    net, x = _net(), torch.randn(4, 16)
    path = tmp_path / "net.onnx"
    torch.onnx.export(net, (x,), str(path), opset_version=17, input_names=["input"], output_names=["output"])
    graph = onnx.load(str(path))
    node = next(n for n in graph.graph.node if n.name == "/1/fc/Gemm")
    init = next(i for i in graph.graph.initializer if i.name == node.input[1])
    init.CopyFrom(numpy_helper.from_array(numpy_helper.to_array(init) * 1.5, init.name))
    model = ipuir.compile(graph.SerializeToString(), target="test16")
    report = against_torch(net, [x], model.dump_values(tmp_path / "values", x))
    bad = report.first_bad
    assert bad is not None and bad.module == "1.fc" and bad.node == "/1/fc/Gemm", str(report)
    assert all(r.ok for r in report.rows[: report.rows.index(bad)])
    print(report)


@needs_torch
def test_a_transformer_encoder_agrees_with_pytorch_module_by_module(tmp_path):
    # nn.TransformerEncoder, two layers of d 256, 128 tokens, on ipu21:
    # every attention, norm and linear of both layers within 1e-4 of
    # PyTorch's value, relative to its largest magnitude.
    from ipuir.compare import against_torch

    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(d_model=256, nhead=4, dim_feedforward=512, batch_first=True)
    net = torch.nn.TransformerEncoder(layer, num_layers=2).eval()
    x = torch.randn(1, 128, 256)
    model = ipuir.compile(net, target="ipu21", inputs=(x,))
    report = against_torch(net, [x], model.dump_values(tmp_path / "values", x), tolerance=1e-4)
    compared = {r.module for r in report.rows}
    for i in range(2):
        assert {f"layers.{i}.self_attn", f"layers.{i}.norm1", f"layers.{i}.linear1", f"layers.{i}.linear2", f"layers.{i}.norm2"} <= compared, str(report)
    assert report.first_bad is None, str(report)
