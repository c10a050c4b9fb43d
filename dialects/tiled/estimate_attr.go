package tiled

import (
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/layout"
)

// Estimate is what an op of the tiled program is expected to cost on its
// busiest tile, and the memory it needs there: the planner's estimate for a
// matmul, the lowering's for every other op.
type Estimate struct {
	// Cycles = ComputeCycles + ExchangeCycles + ReductionCycles + SyncCycles.
	Cycles int64
	// ComputeCycles: AMP work (the target's matmul fit) and weight staging.
	ComputeCycles int64
	// ExchangeCycles: every exchange phase (operands in, partial sums
	// across), with per-phase latency.
	ExchangeCycles int64
	// ReductionCycles: vector adds of partial sums and the final conversion.
	ReductionCycles int64
	// SyncCycles: one all-tile sync per superstep.
	SyncCycles int64
	// ExchangeWords: words the busiest tile receives over all phases.
	ExchangeWords int64
	// ExchangeSentWords: words the busiest tile sends over all phases (a
	// multicast counts once). Optional in the text; 0 when not known.
	ExchangeSentWords int64
	// Peak bytes per memory kind on the busiest tile.
	PeakStandardBytes    int64
	PeakInterleavedBytes int64
}

var estimateFields = []string{"cycles", "compute_cycles", "exchange_cycles", "reduction_cycles", "sync_cycles",
	"exchange_words", "exchange_sent_words", "peak_standard_bytes", "peak_interleaved_bytes"}

func (e *Estimate) fields() []*int64 {
	return []*int64{&e.Cycles, &e.ComputeCycles, &e.ExchangeCycles, &e.ReductionCycles, &e.SyncCycles,
		&e.ExchangeWords, &e.ExchangeSentWords, &e.PeakStandardBytes, &e.PeakInterleavedBytes}
}

// String is the attribute body.
func (e *Estimate) String() string {
	w := &layout.FieldWriter{}
	for i, v := range e.fields() {
		if *v != 0 || estimateFields[i] != "exchange_sent_words" {
			w.Int(estimateFields[i], *v)
		}
	}
	return w.String()
}

// EstimateAttr is #tiled.estimate<cycles = ..., compute_cycles = ..., ...>,
// recorded on a matmul next to its plan.
type EstimateAttr struct{ Estimate Estimate }

// NewEstimateAttr uniques e as an attribute.
func NewEstimateAttr(ctx *ir.Context, e Estimate) *EstimateAttr {
	return ir.UniqueAttr(ctx, &EstimateAttr{Estimate: e})
}

func (a *EstimateAttr) Print(p *ir.AsmPrinter) {
	p.WriteString("#tiled.estimate<")
	p.WriteString(a.Estimate.String())
	p.WriteString(">")
}

func estimateFromSyntax(args *syntaxArgs) (Estimate, error) {
	var e Estimate
	err := readCosts("#tiled.estimate", args, estimateFields, e.fields(), "exchange_sent_words")
	return e, err
}

// Add accumulates o into e: the cost of running o's op after e's.
func (e *Estimate) Add(o *Estimate) {
	e.Cycles += o.Cycles
	e.ComputeCycles += o.ComputeCycles
	e.ExchangeCycles += o.ExchangeCycles
	e.ReductionCycles += o.ReductionCycles
	e.SyncCycles += o.SyncCycles
	e.ExchangeWords += o.ExchangeWords
	e.ExchangeSentWords += o.ExchangeSentWords
	e.PeakStandardBytes = max(e.PeakStandardBytes, o.PeakStandardBytes)
	e.PeakInterleavedBytes = max(e.PeakInterleavedBytes, o.PeakInterleavedBytes)
}

// Total sets Cycles to the sum of its parts.
func (e *Estimate) Total() {
	e.Cycles = e.ComputeCycles + e.ExchangeCycles + e.ReductionCycles + e.SyncCycles
}
