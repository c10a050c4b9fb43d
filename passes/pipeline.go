package passes

import (
	"fmt"
	"io"
	"strings"

	"github.com/ipuir/ipuir/ir"
)

// AnyOp is the anchor of a pipeline that runs on every op it meets that is
// registered and isolated from above, written `any(...)`.
const AnyOp = "any"

// OpPassManager is a pipeline anchored on one kind of op: a list of passes
// and nested pipelines. A nested pipeline runs on the ops directly inside
// the regions of the op its parent runs on, which have its anchor's name.
type OpPassManager struct {
	anchor string
	items  []pipelineItem
	// implicitNesting nests a pass anchored on another op than the
	// pipeline's in a pipeline for that op (MLIR's Nesting::Implicit).
	implicitNesting bool
	// providers names, per fact, the registered passes that establish it,
	// for the messages of the prerequisite check (set by the parser).
	providers map[*ir.Fact][]string
}

// pipelineItem is a pass or a nested pipeline.
type pipelineItem struct {
	pass   Pass
	nested *OpPassManager
}

// NewOpPassManager returns an empty pipeline anchored on the op named
// anchor (AnyOp for any op).
func NewOpPassManager(anchor string) *OpPassManager { return &OpPassManager{anchor: anchor} }

// Anchor is the name of the op the pipeline runs on, or AnyOp.
func (pm *OpPassManager) Anchor() string { return pm.anchor }

// Size is the number of top-level entries (passes and nested pipelines).
func (pm *OpPassManager) Size() int { return len(pm.items) }

// AddPass appends p. A pass anchored on a specific op may only be added to
// a pipeline anchored on that op or on any op.
func (pm *OpPassManager) AddPass(p Pass) error {
	if a := p.Anchor(); pm.implicitNesting && a != "" && pm.anchor != AnyOp && a != pm.anchor {
		// Consecutive passes of one anchor share one nested pipeline.
		if n := len(pm.items); n > 0 && pm.items[n-1].nested != nil && pm.items[n-1].nested.anchor == a {
			return pm.items[n-1].nested.AddPass(p)
		}
		return pm.Nest(a).AddPass(p)
	}
	if a := p.Anchor(); a != "" && pm.anchor != AnyOp && a != pm.anchor {
		return fmt.Errorf("Can't add pass '%s' restricted to '%s' on a PassManager intended to run on '%s', did you intend to nest?",
			DisplayName(p), a, pm.anchor)
	}
	pm.items = append(pm.items, pipelineItem{pass: p})
	return nil
}

// SetImplicitNesting makes AddPass nest a pass anchored on another op in a
// pipeline for that op, as mlir-opt does for pass flags (`--my-func-pass`
// on a module runs on each func.func).
func (pm *OpPassManager) SetImplicitNesting(on bool) { pm.implicitNesting = on }

// Nest appends a pipeline anchored on anchor and returns it.
func (pm *OpPassManager) Nest(anchor string) *OpPassManager {
	n := NewOpPassManager(anchor)
	pm.items = append(pm.items, pipelineItem{nested: n})
	return n
}

// String prints the pipeline in MLIR's textual form, options included:
// `builtin.module(func.func(canonicalize{...},cse),symbol-dce)`.
func (pm *OpPassManager) String() string {
	var b strings.Builder
	pm.print(&b, ",")
	return b.String()
}

func (pm *OpPassManager) print(b *strings.Builder, sep string) {
	b.WriteString(pm.anchor)
	b.WriteByte('(')
	for i, it := range pm.items {
		if i > 0 {
			b.WriteString(sep)
		}
		it.print(b)
	}
	b.WriteByte(')')
}

func (it pipelineItem) print(b *strings.Builder) {
	if it.nested != nil {
		it.nested.print(b, ",")
		return
	}
	b.WriteString(it.pass.Name())
	if opts := optionsText(it.pass); opts != "" {
		b.WriteByte('{')
		b.WriteString(opts)
		b.WriteByte('}')
	}
}

// Dump writes what --dump-pass-pipeline prints.
func (pm *OpPassManager) Dump(w io.Writer) error {
	_, err := fmt.Fprintf(w, "Pass Manager with %d passes:\n%s\n\n", pm.Size(), pm.String())
	return err
}

// reproducerText prints the pipeline as MLIR writes it into a crash
// reproducer, with ", " between the top-level entries.
func (pm *OpPassManager) reproducerText() string {
	var b strings.Builder
	pm.print(&b, ", ")
	return b.String()
}

// passes lists every pass of the pipeline, nested ones included, in order.
func (pm *OpPassManager) allPasses() []Pass {
	var out []Pass
	for _, it := range pm.items {
		if it.nested != nil {
			out = append(out, it.nested.allPasses()...)
		} else {
			out = append(out, it.pass)
		}
	}
	return out
}
