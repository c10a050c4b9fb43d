package tiled

import (
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/layout"
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
	// FinalistsAnnotation holds plan-gemms{record-finalists}'s verified
	// finalists, an array of #tiled.gemm_plan, cheapest first.
	FinalistsAnnotation = "tiled.finalists"
	// HomeAttr, on a function argument read as weights or parameters
	// (`%w: tensor<...> {tiled.home}`) or on a tensor.constant so read (an
	// ONNX initializer), stores it once and brings it into the layout each
	// reader wants just before the read, instead of keeping it resident
	// in that layout for the whole program. Its value is the home's
	// layout (`{tiled.home = #tiled.layout<...>}`, which plan-gemms writes:
	// a weight cut as its first reader's plan cuts it, layout.StoredOnce)
	// or unit, for the default (a weight in the default layout, spread
	// over the chip; a parameter read through broadcasts in kibibyte
	// pieces). plan-gemms sets it when resident weights do not fit; a user
	// may set it by hand.
	HomeAttr = "tiled.home"
	// StreamedAttr, on a function argument read only as matmul weights
	// (`%w: tensor<...> {tiled.streamed}`), keeps the weight in the chip's
	// streaming memory rather than in tile memory: the host writes it
	// there, and a tiled.stream_in loads it into its reader's layout just
	// before the read, the copy freed after it. plan-gemms sets it when
	// even home weights do not fit (or for every weight with
	// weights=streamed); a user may set it by hand, and ResidentAttr
	// keeps a weight on the chip.
	StreamedAttr = "tiled.streamed"
	// ResidentAttr, on a function argument read as weights, keeps it in
	// tile memory: plan-gemms' automatic placement makes it neither home
	// nor streamed.
	ResidentAttr = "tiled.resident"
)

// Dialect is the tiled dialect, declared once and registered in each
// context that uses it.
var Dialect = &ir.Dialect{
	Name:    Name,
	Summary: "Tiled layouts: how tensors are cut into shards over tiles, and how matmuls are partitioned.",
	Description: "Step 2 of the lowering pipeline. Tensor types carry a #tiled.layout encoding; " +
		"tiled.relayout moves a tensor between layouts, tiled.shard and tiled.view name one tile's " +
		"piece of it, and tiled.matmul is a matmul with a GEMM plan whose operands are in the " +
		"layouts the plan gives them. tiled.constant, tiled.elementwise, tiled.broadcast, " +
		"tiled.reduce, tiled.transpose and tiled.reshape work on each tile's own shards; " +
		"tiled.combine reduces partial results across tiles in one exchange phase.",
	Ops: []*ir.OpDef{RelayoutOp, StreamInOp, ShardOp, ViewOp, MatmulOp, ConstantOp, ElementwiseOp, BroadcastOp, ReduceOp,
		CombineOp, TransposeOp, ReshapeOp, SliceOp, ConcatOp},
	Attrs: []*ir.AttrDecl{
		{Mnemonic: LayoutMnemonic, Summary: "A tensor's distribution over tiles (see LayoutAttr).",
			Syntax: "#tiled.layout<order = ..., tile_count = N, replicas = N, axes = [{axis = -n, partitions = N, ...}], memory_class = Name>",
			Parse: attrParser(LayoutMnemonic, func(ctx *ir.Context, args *syntaxArgs) (ir.Attribute, error) {
				l, err := layoutFromSyntax(args)
				if err != nil {
					return nil, err
				}
				return NewLayoutAttr(ctx, l), nil
			})},
		{Mnemonic: GemmPlanMnemonic, Summary: "How a matmul is partitioned (see GemmPlanAttr).",
			Syntax: "#tiled.gemm_plan<orientation = normal|swapped, batch_partitions = N, row_partitions = N, ...>",
			Parse: attrParser(GemmPlanMnemonic, func(ctx *ir.Context, args *syntaxArgs) (ir.Attribute, error) {
				p, err := planFromSyntax(args)
				if err != nil {
					return nil, err
				}
				return NewGemmPlanAttr(ctx, p), nil
			})},
		{Mnemonic: GemmConstraintMnemonic, Summary: "Fields of a plan a user pins.",
			Syntax: "#tiled.gemm_constraint<any subset of gemm_plan's fields>",
			Parse: attrParser(GemmConstraintMnemonic, func(ctx *ir.Context, args *syntaxArgs) (ir.Attribute, error) {
				c, err := constraintFromSyntax("#tiled.gemm_constraint", args, false)
				if err != nil {
					return nil, err
				}
				return NewGemmConstraintAttr(ctx, c), nil
			})},
		{Mnemonic: ExtentsMnemonic, Summary: "A region of a tensor, one triple per axis.",
			Syntax: "#tiled.extents<[start, logical_end, physical_end], ...>",
			Parse: attrParser(ExtentsMnemonic, func(ctx *ir.Context, args *syntaxArgs) (ir.Attribute, error) {
				ext, err := extentsFromSyntax(args)
				if err != nil {
					return nil, err
				}
				return NewExtentsAttr(ctx, ext), nil
			})},
		{Mnemonic: EstimateMnemonic, Summary: "The planner's estimate for a plan.",
			Syntax: "#tiled.estimate<cycles = N, compute_cycles = N, ...>",
			Parse: attrParser(EstimateMnemonic, func(ctx *ir.Context, args *syntaxArgs) (ir.Attribute, error) {
				e, err := estimateFromSyntax(args)
				if err != nil {
					return nil, err
				}
				return NewEstimateAttr(ctx, e), nil
			})},
		{Mnemonic: SummaryMnemonic, Summary: "The estimate of a whole tiled program, beside its compute bound.",
			Syntax: "#tiled.summary<cycles = N, compute_cycles = N, ..., macs = N, compute_bound_cycles = N>",
			Parse: attrParser(SummaryMnemonic, func(ctx *ir.Context, args *syntaxArgs) (ir.Attribute, error) {
				s, err := summaryFromSyntax(args)
				if err != nil {
					return nil, err
				}
				return NewSummaryAttr(ctx, s), nil
			})},
	},
	Directives: map[string]*ir.CustomDirective{
		customTile:      ir.IntDirective,
		customExtents:   {Print: printExtents, Parse: parseExtents},
		customName:      NameDirective,
		customIndexList: ir.IndexListDirective,
	},
}

// Register adds the tiled dialect to ctx.
func Register(ctx *ir.Context) error { return ctx.RegisterDialect(Dialect) }

// attrParser adapts a constructor from the parsed `<...>` fields to an
// AttrDecl's Parse: every attribute of the dialect shares one grammar.
func attrParser(mnemonic string, build func(ctx *ir.Context, args *syntaxArgs) (ir.Attribute, error)) func(*ir.Context, string, ir.Type) (ir.Attribute, error) {
	return func(ctx *ir.Context, body string, _ ir.Type) (ir.Attribute, error) {
		tree, err := parseBody(ctx, "#"+Name+"."+mnemonic, body)
		if err != nil {
			return nil, err
		}
		return build(ctx, tree.Args)
	}
}

// AliasName makes layouts print through `#layout` aliases, so that the
// tensor types of tiled IR stay readable.
func (*LayoutAttr) AliasName() (string, bool) { return "layout", true }

// AliasName makes plans print through `#gemm_plan` aliases.
func (*GemmPlanAttr) AliasName() (string, bool) { return "gemm_plan", true }

// LayoutOf returns the layout encoding of a tensor type, if it has one.
func LayoutOf(t ir.Type) (*layout.Layout, bool) {
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
func WithLayout(ctx *ir.Context, t *ir.RankedTensorType, l layout.Layout) *ir.RankedTensorType {
	return ctx.TensorWithEncoding(t.Dims, t.Elem, NewLayoutAttr(ctx, l))
}
