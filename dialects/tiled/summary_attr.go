package tiled

import (
	"slices"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/layout"
)

// Summary is the estimate of a whole tiled program: the sum of its ops'
// estimates (BSP supersteps do not overlap), their matmuls' work, and the
// compute bound that work implies: total MACs over the AMP throughput of
// every tile (target.ComputeLowerBoundCycles).
type Summary struct {
	Estimate
	// Ops is the number of tiled ops costed.
	Ops int64
	// MACs is the multiply-accumulates of every matmul.
	MACs int64
	// ComputeBoundCycles is MACs / (MACs per cycle per tile × tiles).
	ComputeBoundCycles int64
}

// SummaryAnnotation is the module attribute tiled-estimate sets.
const SummaryAnnotation = "tiled.summary"

// SummaryMnemonic is the summary attribute's name after `#tiled.`.
const SummaryMnemonic = "summary"

var summaryFields = []string{"cycles", "compute_cycles", "exchange_cycles", "reduction_cycles", "sync_cycles",
	"exchange_words", "peak_standard_bytes", "peak_interleaved_bytes", "ops", "macs", "compute_bound_cycles"}

func (s *Summary) fields() []*int64 {
	return []*int64{&s.Cycles, &s.ComputeCycles, &s.ExchangeCycles, &s.ReductionCycles, &s.SyncCycles,
		&s.ExchangeWords, &s.PeakStandardBytes, &s.PeakInterleavedBytes, &s.Ops, &s.MACs, &s.ComputeBoundCycles}
}

// String is the attribute body.
func (s *Summary) String() string {
	w := &layout.FieldWriter{}
	for i, v := range s.fields() {
		w.Int(summaryFields[i], *v)
	}
	return w.String()
}

// SummaryAttr is #tiled.summary<cycles = ..., ..., compute_bound_cycles = ...>.
type SummaryAttr struct{ Summary Summary }

// NewSummaryAttr uniques s as an attribute.
func NewSummaryAttr(ctx *ir.Context, s Summary) *SummaryAttr {
	return ir.UniqueAttr(ctx, &SummaryAttr{Summary: s})
}

func (a *SummaryAttr) Print(p *ir.AsmPrinter) {
	p.WriteString("#tiled.summary<")
	p.WriteString(a.Summary.String())
	p.WriteString(">")
}

func summaryFromSyntax(args *syntaxArgs) (Summary, error) {
	var s Summary
	err := readCosts("#tiled.summary", args, summaryFields, s.fields())
	return s, err
}

// readCosts reads a cost attribute's fields (what names it in messages):
// the named non-negative integers into vals, every one required but those
// in optional, and cycles must be the sum of compute, exchange, reduction
// and sync cycles. #tiled.estimate and #tiled.summary share it.
func readCosts(what string, args *syntaxArgs, names []string, vals []*int64, optional ...string) error {
	f, err := newFieldSet(what, lexer.Position{}, args)
	if err != nil {
		return err
	}
	byName := map[string]int64{}
	for i, v := range vals {
		if *v, err = f.int(names[i], 0, !slices.Contains(optional, names[i])); err != nil {
			return err
		}
		if *v < 0 {
			return errAt(f.items[names[i]].Value.Pos, "%s: field '%s' must not be negative, got %d", what, names[i], *v)
		}
		byName[names[i]] = *v
	}
	if sum := byName["compute_cycles"] + byName["exchange_cycles"] + byName["reduction_cycles"] + byName["sync_cycles"]; sum != byName["cycles"] {
		return errAt(f.items["cycles"].Value.Pos, "%s: cycles %d is not the sum of its parts (%d)", what, byName["cycles"], sum)
	}
	return f.done(names...)
}
