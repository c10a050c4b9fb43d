package main

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ipuir/ipuir/parser"
	"github.com/ipuir/ipuir/registry"
	"github.com/ipuir/ipuir/runtime/ipupkg"
	"github.com/ipuir/ipuir/runtime/pipeline"
	"github.com/ipuir/ipuir/target"
	"github.com/ipuir/ipuir/target/irtarget"
	"github.com/ipuir/ipuir/tools/toolkit"
)

// podModel is four matmuls with a residual that skips a stage: cut into
// four stages, stage 2 reads stage 0's %b as well as stage 1's %d.
const podModel = `module attributes {ipu.target = "test16x4"} {
  func.func @enc(%x: tensor<16x64xf16>, %w1: tensor<64x64xf16>, %w2: tensor<64x64xf16>, %w3: tensor<64x64xf16>, %w4: tensor<64x64xf16>) -> tensor<16x64xf16> {
    %a = tensor.matmul %x, %w1 : tensor<16x64xf16>, tensor<64x64xf16> -> tensor<16x64xf16>
    %b = tensor.tanh %a : tensor<16x64xf16>
    %c = tensor.matmul %b, %w2 : tensor<16x64xf16>, tensor<64x64xf16> -> tensor<16x64xf16>
    %d = tensor.tanh %c : tensor<16x64xf16>
    %e = tensor.matmul %d, %w3 : tensor<16x64xf16>, tensor<64x64xf16> -> tensor<16x64xf16>
    %f = tensor.add %e, %b : tensor<16x64xf16>
    %g = tensor.matmul %f, %w4 : tensor<16x64xf16>, tensor<64x64xf16> -> tensor<16x64xf16>
    return %g : tensor<16x64xf16>
  }
}
`

// compilePod compiles src for its pod target as ipu-translate
// --emit-package does.
func compilePod(t *testing.T, src string) *ipupkg.Pod {
	t.Helper()
	ctx := registry.NewContext()
	module, err := parser.ParseSourceString(ctx, []byte(src), parser.Config{Filename: "pod.ipuir"})
	if err != nil {
		t.Fatal(err)
	}
	tg, err := target.Lookup("test16x4")
	if err != nil {
		t.Fatal(err)
	}
	pod, err := toolkit.CompilePod(ctx, module, []byte(src), irtarget.EnvKey.With(nil, tg), slog.New(slog.DiscardHandler), tg,
		toolkit.PodOptions{Balance: "cycles", MicroBatches: 3, Compiler: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return pod
}

func writePod(t *testing.T, pod *ipupkg.Pod) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "model.ipupod")
	if err := os.WriteFile(path, pod.Encode(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// The pod's --check passes on the pod as compiled, and fails, naming the
// check, when a stage is fed the wrong value (every stage still passes its
// own check on what it was fed: only the model-wide checks can see it) or
// when the pod's stages compute another model than its source.
func TestPodCheckFindsWhatNoStageSees(t *testing.T) {
	pod := compilePod(t, podModel)
	if len(pod.Stages) != 4 || len(pod.Stages[2].Inputs) != 3 {
		t.Fatalf("the cut: %d stages, stage 2 reads %d values", len(pod.Stages), len(pod.Stages[2].Inputs))
	}
	lock := t.TempDir()
	args := func(path string) []string {
		return []string{path, "--generate", "gaussian:seed=1", "--check", "--report-cycles", "--lock-dir", lock}
	}
	code, out, errs := runTool(t, args(writePod(t, pod))...)
	if code != 0 || !strings.Contains(out, "numericalTest=PASS stages=4 micro_batches=3 stage_checks=12") ||
		!strings.Contains(out, "model_outputs_compared=3072 outline_compared=3072") {
		t.Fatalf("exit %d:\n%s%s", code, out, errs)
	}

	// Stage 2's residual input fed stage 1's output instead of stage 0's
	// (same type and shape, so the package is valid).
	rewired := compilePod(t, podModel)
	for i, ref := range rewired.Stages[2].Inputs {
		if ref.Stage == 0 {
			rewired.Stages[2].Inputs[i] = ipupkg.PodRef{Stage: 1, Index: 0}
		}
	}
	// The link schedule moves what the stages now read.
	var err error
	if rewired.Links, _, err = pipeline.ScheduleLinks(rewired, mustLookup(t, rewired.Target)); err != nil {
		t.Fatal(err)
	}
	code, out, _ = runTool(t, args(writePod(t, rewired))...)
	if code != 1 || !strings.Contains(out, "numericalTest=FAIL") ||
		!strings.Contains(out, "the stages' functions chained compute model output 0 differently from the model") ||
		!strings.Contains(out, "the model's outputs: output #0, end-to-end check:") {
		t.Errorf("a rewired stage: exit %d:\n%s", code, out)
	}

	// The pod's source says the residual is a subtraction.
	other := compilePod(t, podModel)
	other.Source = []byte(strings.Replace(podModel, "%f = tensor.add %e, %b", "%f = tensor.sub %e, %b", 1))
	code, out, _ = runTool(t, args(writePod(t, other))...)
	if code != 1 || !strings.Contains(out, "numericalTest=FAIL") || !strings.Contains(out, "differently from the model") {
		t.Errorf("another source: exit %d:\n%s", code, out)
	}
}

func mustLookup(t *testing.T, name string) *target.Target {
	t.Helper()
	tg, err := target.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

// The link phase: stage 2 reads stage 0's %b two chips away, so one
// transfer crosses two links; the run moves it as scheduled, and refuses a
// schedule faster than the target's links.
func TestPodLinkPhase(t *testing.T) {
	pod := compilePod(t, podModel)
	twoHops := 0
	for _, l := range pod.Links {
		if len(l.Hops) == 2 {
			twoHops++
		}
	}
	if len(pod.Links) != 4 || twoHops != 1 {
		t.Fatalf("the link schedule: %+v", pod.Links)
	}
	lock := t.TempDir()
	code, out, errs := runTool(t, writePod(t, pod), "--generate", "gaussian:seed=1", "--check", "--report-cycles", "--lock-dir", lock)
	if code != 0 || !strings.Contains(out, "numericalTest=PASS") {
		t.Fatalf("exit %d:\n%s%s", code, out, errs)
	}
	fast := compilePod(t, podModel)
	fast.Links[0].Hops[0].Sent--
	code, _, errs = runTool(t, writePod(t, fast), "--generate", "gaussian:seed=1", "--lock-dir", lock)
	if code != 1 || !strings.Contains(errs, "link transfer 0 hop 0 sends 2048 bytes from chip 0 to chip 1 in") {
		t.Errorf("a schedule faster than the links: exit %d: %s", code, errs)
	}
}
