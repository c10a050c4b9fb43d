package plan

import (
	"log/slog"

	"github.com/ipuir/ipuir/dialects/tiled"
	"github.com/ipuir/ipuir/layout"
)

// Operand says where a matmul operand comes from.
type Operand struct {
	// Resident operands (weights, constants) are placed on their tiles at
	// load time in whatever layout the plan gives them: no exchange.
	Resident bool
	// Value names the data: operands with the same Value hold the same
	// elements, so a layout one matmul exchanged it into (or produced it in)
	// serves the others. The pass gives a matmul's result and the values
	// layout-preserving ops derive from it (elementwise, softmax) one Value.
	// Negative values are never shared.
	Value int
	// Derive maps a layout of Value to the layout this operand arrives in
	// through the ops between them that keep data on its tiles
	// (transposes, reshapes; layout.PermuteLayout, layout.ReshapeLayouts), so
	// that the planner prices the relayout from where a producer leaves
	// the data. Nil when the operand is Value itself; false when no layout
	// follows.
	Derive func(*layout.Layout) (layout.Layout, bool)
	// Source is the layout Value is in when no matmul produces it (a
	// function argument, in its default layout); nil when unknown.
	Source *layout.Layout
	// Home operands (weights stored once, tiled.HomeAttr) stay in Source
	// for the whole program and are brought into the plan's layout just
	// before the matmul: every matmul is planned beside their Source bytes,
	// and the plan pays the exchange from Source.
	Home bool
	// Streamed operands (weights in the chip's streaming memory,
	// tiled.StreamedAttr) are loaded into the plan's layout just before the
	// matmul and freed after it: no tile holds them otherwise, no exchange
	// brings them, and the plan pays the streaming load of every byte its
	// layout stores (Target.StreamingCycles, after a sync).
	Streamed bool
}

// arrivesInPlace reports whether the operand comes in the plan's own
// layout without an exchange (resident or streamed): no layout it is in
// serves another reader.
func (o Operand) arrivesInPlace() bool { return o.Resident || o.Streamed }

// Matmul is one matmul of a program.
type Matmul struct {
	// Name identifies the matmul in log lines (the IR's SSA name).
	Name     string
	Shape    layout.MatmulShape
	LHS, RHS Operand
	// Result is the Value of the result.
	Result int
	// Constraint pins fields of the plan; nil for none.
	Constraint *layout.GemmConstraint
	// NCuts are positions along n that must fall on partition boundaries
	// of B and of the result (tiled.NCutsAlign): a matmul planned jointly
	// as one wider one, whose parts then sit on their own ranges of tiles.
	NCuts []int64
}

// Program is the matmuls of a function in program order.
type Program struct {
	Matmuls []Matmul
}

// Options tune the planner.
type Options struct {
	// Finalists is how many of the cheapest candidates are kept for
	// verification (the K of "the best K"); at least 1.
	Finalists int
	// Logger receives the planner's structured lines; nil discards them.
	Logger *slog.Logger
	// Memo answers the searches asked before (in this planning, or in
	// earlier ones that shared it); nil gives each PlanProgram a memo of
	// its own.
	Memo *Memo
	// SupportBytes, when positive, is the busiest tile's support memory
	// (code and exchange tables) as a placement of the program measured
	// it: every matmul is planned beside what it holds beyond the target's
	// support reserve, instead of the planner's estimate of the tables.
	SupportBytes int64
}

// DefaultFinalists is the number of finalists kept when Options does not
// say: enough to survive a few infeasible ones (the reference log rejected
// three of four), few enough that verifying them is cheap.
const DefaultFinalists = 4

// Choice is the plan chosen for one matmul.
type Choice struct {
	Name     string
	Plan     layout.GemmPlan
	Estimate tiled.Estimate
	Layouts  *layout.PlanLayouts
	// Candidates counts the plans costed, Pruned those cut by a lower bound
	// before costing, Rejected the finalists the verifier refused.
	Candidates, Pruned, Rejected int
	// Finalists are the verified finalists, cheapest first by the
	// planner's estimate (Plan among them): what a tuner measures.
	Finalists []layout.GemmPlan
}
