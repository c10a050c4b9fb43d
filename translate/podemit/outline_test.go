package podemit_test

import (
	"strings"
	"testing"

	"github.com/ipuir/ipuir/registry/registrytest"
	"github.com/ipuir/ipuir/runtime/ipupkg"
	"github.com/ipuir/ipuir/translate/podemit"
)

// chain is three ops in stages given by the %s's, the second reading the
// first, the third the first and second, and a constant.
const chain = `module attributes {ipu.target = "test16x4"} {
  func.func @f(%%x: tensor<4xf32> {ipu.name = "x"}) -> (tensor<4xf32> {ipu.name = "y"}) {
    %%c = tensor.constant dense<2.0> : tensor<4xf32>
    %%a = tensor.mul %%x, %%c {ipu.stage = %s : i64} : tensor<4xf32>
    %%b = tensor.exp %%a {ipu.stage = %s : i64} : tensor<4xf32>
    %%d = tensor.add %%a, %%b {ipu.stage = %s : i64} : tensor<4xf32>
    return %%d : tensor<4xf32>
  }
}
`

func outline(t *testing.T, stages ...string) (*podemit.Outlined, error) {
	t.Helper()
	src := chain
	for _, s := range stages {
		src = strings.Replace(src, "%s", s, 1)
	}
	src = strings.ReplaceAll(src, "%%", "%")
	_, module := registrytest.Parse(t, "chain.ipuir", []byte(src))
	return podemit.Outline(module, "test16")
}

func TestOutlineJoinsTheStages(t *testing.T) {
	out, err := outline(t, "0", "1", "2")
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Stages) != 3 || out.Inputs[0] != "x" {
		t.Fatalf("%d stages, inputs %v", len(out.Stages), out.Inputs)
	}
	want := [][]ipupkg.PodRef{
		{{Stage: ipupkg.HostStage, Index: 0}}, // %x; the constant is copied in
		{{Stage: 0, Index: 0}},                // %a
		{{Stage: 0, Index: 0}, {Stage: 1, Index: 0}},
	}
	for k, st := range out.Stages {
		if len(st.Inputs) != len(want[k]) {
			t.Fatalf("stage %d inputs %v, want %v", k, st.Inputs, want[k])
		}
		for i := range want[k] {
			if st.Inputs[i] != want[k][i] {
				t.Errorf("stage %d input %d from %v, want %v", k, i, st.Inputs[i], want[k][i])
			}
		}
	}
	if len(out.Outputs) != 1 || out.Outputs[0] != (ipupkg.PodRef{Stage: 2, Index: 0}) {
		t.Errorf("outputs %v", out.Outputs)
	}
}

func TestOutlineRefusesWhatIsNoPipeline(t *testing.T) {
	for _, c := range []struct {
		stages []string
		want   string
	}{
		{[]string{"1", "0", "1"}, "in pipeline stage 0 reads a value of stage 1: a stage reads only earlier stages"},
		{[]string{"0", "2", "2"}, "has no op in pipeline stage 1 of 3"},
		{[]string{"0", "-1", "1"}, "has no pipeline stage"},
	} {
		if _, err := outline(t, c.stages...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("stages %v: %v; want %q", c.stages, err, c.want)
		}
	}
}
