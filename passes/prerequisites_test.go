package passes_test

import (
	"strings"
	"testing"

	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/passes"
)

// marked is a fact: the module carries the unit attribute test.marked.
var marked = &ir.Fact{Name: "test.marked", Doc: "the module is marked",
	Lacking: func(root *ir.Operation, _ *ir.Env) *ir.Operation {
		if root.Attr("test.marked") != nil {
			return nil
		}
		return root
	}}

// markPass establishes marked; needsMark requires it.
type markPass struct{}

func (*markPass) Name() string         { return "test-mark" }
func (*markPass) Summary() string      { return "Mark the module" }
func (*markPass) Anchor() string       { return ir.ModuleOpName }
func (*markPass) Provides() []*ir.Fact { return []*ir.Fact{marked} }
func (*markPass) Run(op *ir.Operation, pc *passes.PassContext) error {
	op.SetAttr(pc.Context(), "test.marked", pc.Context().Unit())
	return nil
}

type needsMark struct{ ran *bool }

func (*needsMark) Name() string         { return "test-needs-mark" }
func (*needsMark) Summary() string      { return "Require the mark" }
func (*needsMark) Anchor() string       { return ir.ModuleOpName }
func (*needsMark) Requires() []*ir.Fact { return []*ir.Fact{marked} }
func (p *needsMark) Run(op *ir.Operation, _ *passes.PassContext) error {
	if op.Attr("test.marked") == nil {
		panic("ran without its prerequisite")
	}
	return nil
}

// A pass's prerequisites are checked before anything runs: the parser
// refuses a pipeline that establishes a fact after the pass that needs
// it, and the pass manager refuses to start when neither the input nor an
// earlier pass has it, naming the pass that would.
func TestPrerequisites(t *testing.T) {
	r := passes.NewRegistry()
	for _, p := range []passes.Pass{&markPass{}, &needsMark{}} {
		if err := r.Register(p); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := r.ParsePipeline("builtin.module(test-needs-mark,test-mark)"); err == nil ||
		!strings.Contains(err.Error(), "pass 'test-needs-mark' requires that the module is marked, which 'test-mark' establishes only after it in the pipeline") {
		t.Errorf("misordered pipeline: %v", err)
	}
	run := func(pipeline string, markedInput bool) error {
		t.Helper()
		ctx := ir.NewContext()
		module := ir.NewModule(ctx, ctx.FileLineCol("m.ipuir", 1, 1))
		if markedInput {
			module.SetAttr(ctx, "test.marked", ctx.Unit())
		}
		pm, err := r.ParsePipeline(pipeline)
		if err != nil {
			t.Fatal(err)
		}
		return passes.NewPassManager(ctx, pm, passes.DefaultOptions()).Run(module)
	}
	err := run("builtin.module(test-needs-mark)", false)
	if err == nil || !strings.Contains(err.Error(), "m.ipuir:1:1: error: pass 'test-needs-mark' requires that the module is marked, "+
		"which the input does not have and no pass before it establishes: run test-mark first") {
		t.Errorf("unmet prerequisite: %v", err)
	}
	for _, c := range []struct {
		pipeline string
		marked   bool
	}{{"builtin.module(test-mark,test-needs-mark)", false}, {"builtin.module(test-needs-mark)", true}} {
		if err := run(c.pipeline, c.marked); err != nil {
			t.Errorf("%s (input marked %v): %v", c.pipeline, c.marked, err)
		}
	}
	info := r.Lookup("test-needs-mark")
	if got := info.Requires(); len(got) != 1 || got[0].Name != "test.marked" {
		t.Errorf("declared requirements %v", got)
	}
}
