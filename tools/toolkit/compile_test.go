package toolkit

import (
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/ipuir/ipuir/registry"
	"github.com/ipuir/ipuir/target/irtarget"
)

// A compile's environment may carry PassProgressKey: the progress line is
// told every pass as it starts, in order (ipu-translate --emit-package on
// a terminal shows it).
func TestRunPipelineTellsEachPass(t *testing.T) {
	l := &Loader{Setup: registry.RegisterDialects, Env: irtarget.EnvOfModule}
	src := `module attributes {ipu.target = "test16"} {
  func.func @f(%x: tensor<8x16xf16>, %w: tensor<16x16xf16>) -> tensor<8x16xf16> {
    %y = tensor.matmul %x, %w : tensor<8x16xf16>, tensor<16x16xf16> -> tensor<8x16xf16>
    return %y : tensor<8x16xf16>
  }
}
`
	p, err := l.LoadSource("f.ipuir", []byte(src), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var told []string
	env := PassProgressKey.With(p.Env, func(name string) { told = append(told, name) })
	if err := RunPipeline(p.Ctx, p.Module, registry.ModulePipeline(registry.LowerTensorToTiled), env, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	want := registry.PipelinePasses(registry.LowerTensorToTiled)
	if !slices.Equal(told, want) {
		t.Errorf("told %s, want %s", strings.Join(told, ","), strings.Join(want, ","))
	}
}
