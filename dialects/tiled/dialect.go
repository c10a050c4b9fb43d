package tiled

import (
	"fmt"

	"github.com/ipuir/ipuir/ir"
)

// Name is the dialect's namespace.
const Name = "tiled"

// Names of the dialect's attributes as written after `#tiled.`.
const (
	LayoutMnemonic         = "layout"
	GemmPlanMnemonic       = "gemm_plan"
	GemmConstraintMnemonic = "gemm_constraint"
	ExtentsMnemonic        = "extents"
	EstimateMnemonic       = "estimate"
)

// Discardable attributes the passes attach to model-level matmuls.
const (
	// PlanAnnotation holds the chosen #tiled.gemm_plan.
	PlanAnnotation = "tiled.plan"
	// EstimateAnnotation holds the plan's #tiled.estimate.
	EstimateAnnotation = "tiled.estimate"
	// ConstraintAnnotation holds a user's #tiled.gemm_constraint.
	ConstraintAnnotation = "tiled.constraint"
)

// Dialect returns a fresh declaration of the tiled dialect.
func Dialect() *ir.Dialect {
	registerSyntax()
	return &ir.Dialect{
		Name:    Name,
		Summary: "Tiled layouts: how tensors are cut into shards over tiles, and how matmuls are partitioned.",
		Description: "Step 2 of the lowering pipeline. Tensor types carry a #tiled.layout encoding; " +
			"tiled.relayout moves a tensor between layouts, tiled.shard and tiled.view name one tile's " +
			"piece of it, and tiled.matmul is a matmul with a GEMM plan whose operands are in the " +
			"layouts the plan gives them.",
		Ops:       ops(),
		ParseAttr: parseAttr,
		AttrDocs: []DocEntry{
			{Name: "layout", Syntax: "#tiled.layout<order = ..., tile_count = N, replicas = N, axes = [{axis = -n, partitions = N, ...}], memory_class = Name>",
				Summary: "A tensor's distribution over tiles (see LayoutAttr)."},
			{Name: "gemm_plan", Syntax: "#tiled.gemm_plan<orientation = normal|swapped, batch_partitions = N, row_partitions = N, ...>",
				Summary: "How a matmul is partitioned (see GemmPlanAttr)."},
			{Name: "gemm_constraint", Syntax: "#tiled.gemm_constraint<any subset of gemm_plan's fields>",
				Summary: "Fields of a plan a user pins."},
			{Name: "extents", Syntax: "#tiled.extents<[start, logical_end, physical_end], ...>",
				Summary: "A region of a tensor, one triple per axis."},
			{Name: "estimate", Syntax: "#tiled.estimate<cycles = N, compute_cycles = N, ...>",
				Summary: "The planner's estimate for a plan."},
		},
	}
}

// DocEntry is ir.DocEntry, named here to keep the declaration short.
type DocEntry = ir.DocEntry

// Register adds the tiled dialect to ctx.
func Register(ctx *ir.Context) error { return ctx.RegisterDialect(Dialect()) }

// parseAttr is the dialect's attribute hook: body is the text after
// `#tiled`, e.g. `.layout<...>`.
func parseAttr(ctx *ir.Context, body string, _ ir.Type) (ir.Attribute, error) {
	tree, err := parseBody(body)
	if err != nil {
		return nil, err
	}
	switch tree.Mnemonic {
	case LayoutMnemonic:
		l, err := layoutFromSyntax(tree.Args)
		if err != nil {
			return nil, err
		}
		return NewLayoutAttr(ctx, l), nil
	case GemmPlanMnemonic:
		p, err := planFromSyntax(tree.Args)
		if err != nil {
			return nil, err
		}
		return NewGemmPlanAttr(ctx, p), nil
	case GemmConstraintMnemonic:
		c, err := constraintFromSyntax("#tiled.gemm_constraint", tree.Args, false)
		if err != nil {
			return nil, err
		}
		return NewGemmConstraintAttr(ctx, c), nil
	case ExtentsMnemonic:
		ext, err := extentsFromSyntax(tree.Args)
		if err != nil {
			return nil, err
		}
		return NewExtentsAttr(ctx, ext), nil
	case EstimateMnemonic:
		e, err := estimateFromSyntax(tree.Args)
		if err != nil {
			return nil, err
		}
		return NewEstimateAttr(ctx, e), nil
	}
	return nil, fmt.Errorf("unknown attribute #tiled.%s (known: layout, gemm_plan, gemm_constraint, extents, estimate)", tree.Mnemonic)
}

// AliasName makes layouts print through `#layout` aliases, so that the
// tensor types of tiled IR stay readable.
func (*LayoutAttr) AliasName() (string, bool) { return "layout", true }

// AliasName makes plans print through `#gemm_plan` aliases.
func (*GemmPlanAttr) AliasName() (string, bool) { return "gemm_plan", true }

// LayoutOf returns the layout encoding of a tensor type, if it has one.
func LayoutOf(t ir.Type) (*Layout, bool) {
	rt, ok := t.(*ir.RankedTensorType)
	if !ok {
		return nil, false
	}
	la, ok := rt.Encoding.(*LayoutAttr)
	if !ok {
		return nil, false
	}
	return &la.Layout, true
}

// WithLayout returns t (a ranked tensor type) with l as its encoding.
func WithLayout(ctx *ir.Context, t *ir.RankedTensorType, l Layout) *ir.RankedTensorType {
	return ctx.TensorWithEncoding(t.Dims, t.Elem, NewLayoutAttr(ctx, l))
}
