// Package exchangejson translates a program's exchange phases to JSON, the
// form users' own tools (and ours) read: ipu-translate --exchange-to-json.
package exchangejson

import (
	"encoding/json"
	"io"

	"github.com/ipuir/ipuir/dialects/exchange"
	"github.com/ipuir/ipuir/ir"
)

// JSON is the form of a program's exchange that users' tools read:
//
//	{"phases": [{"phase": N, "name": NAME, "transfers": [{"id": I, "src": TILE, "dst": [TILE, ...], "words": W}, ...],
//	             "schedule": {"horizon": H, "segments": [[I, START_CYCLE, WORDS], ...]}}, ...]}
//
// NAME is what the phase moves as the source calls it (ir.DescribeOp of
// the phase). A segment sends WORDS consecutive words of transfer I, one per cycle
// from START_CYCLE, each word reaching every tile in dst in the same cycle.
type JSON struct {
	Phases []JSONPhase `json:"phases"`
}

// JSONPhase is one phase of JSON.
type JSONPhase struct {
	Phase     int64          `json:"phase"`
	Name      string         `json:"name"`
	Transfers []JSONTransfer `json:"transfers"`
	Schedule  JSONSchedule   `json:"schedule"`
}

// JSONTransfer is one transfer of a JSONPhase.
type JSONTransfer struct {
	ID    int     `json:"id"`
	Src   int32   `json:"src"`
	Dst   []int32 `json:"dst"`
	Words int64   `json:"words"`
}

// JSONSchedule is a JSONPhase's schedule.
type JSONSchedule struct {
	Horizon  int64      `json:"horizon"`
	Segments [][3]int64 `json:"segments"`
}

// ToJSON collects the exchange phases nested in root, in program order.
func ToJSON(root *ir.Operation) *JSON {
	out := &JSON{Phases: []JSONPhase{}}
	root.Walk(func(op *ir.Operation) ir.WalkResult {
		if !op.Is(exchange.PhaseOp) {
			return ir.WalkAdvance
		}
		ta, ok1 := op.Attr(exchange.TransfersAttrName).(*exchange.TransfersAttr)
		sa, ok2 := op.Attr(exchange.ScheduleAttrName).(*exchange.ScheduleAttr)
		n, ok3 := op.Attr(exchange.PhaseAttrName).(*ir.IntegerAttr)
		if !ok1 || !ok2 || !ok3 {
			return ir.WalkAdvance // the verifier refuses such a phase
		}
		p := JSONPhase{Phase: n.Int, Name: ir.DescribeOp(op), Transfers: make([]JSONTransfer, len(ta.List)),
			Schedule: JSONSchedule{Horizon: sa.Horizon, Segments: make([][3]int64, len(sa.Segments))}}
		for i, t := range ta.List {
			p.Transfers[i] = JSONTransfer{ID: i, Src: t.Src, Dst: t.Dst, Words: t.Words}
		}
		for i, s := range sa.Segments {
			p.Schedule.Segments[i] = [3]int64{int64(s.Transfer), s.Start, s.Words}
		}
		out.Phases = append(out.Phases, p)
		return ir.WalkAdvance
	})
	return out
}

// Write writes the exchange of root as JSON.
func Write(w io.Writer, root *ir.Operation) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false) // names such as "%0 (exchange.phase at <stdin>:8:10)" stay as they are
	return enc.Encode(ToJSON(root))
}

// HasExchange reports whether root went through the exchange lowering: it
// holds a phase or a sync (a program that moves no data between tiles has
// syncs only where compute sets end, or nothing to write).
func HasExchange(root *ir.Operation) bool {
	found := false
	root.Walk(func(op *ir.Operation) ir.WalkResult {
		if op.Is(exchange.PhaseOp, exchange.SyncOp) {
			found = true
			return ir.WalkInterrupt
		}
		return ir.WalkAdvance
	})
	return found
}
