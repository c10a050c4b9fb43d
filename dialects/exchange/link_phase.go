package exchange

import (
	"fmt"
	"slices"

	"github.com/ipuir/ipuir/dialects/tensor"
	"github.com/ipuir/ipuir/elem/irelem"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/runtime/ipupkg"
	"github.com/ipuir/ipuir/runtime/pipeline"
	"github.com/ipuir/ipuir/target/irtarget"
)

// The link phase of a pipeline over several chips, as the exchange level
// sees it: once a pipeline slot, every value a stage computes and a later
// stage on another chip reads moves over the ring of IPU-Links.
const (
	LinkPhaseOpName = "exchange.link_phase"

	ToStagesAttrName   = "to_stages"
	HopsAttrName       = "hops"
	CyclesAttrName     = "cycles"
	LowerBoundAttrName = "lower_bound"
	StageChipsAttrName = "stage_chips"
)

// hopFields are the integers of one hop in the hops attribute: the chip it
// leaves, the neighbour it reaches, and the cycles it starts, has been
// sent and has arrived (ipupkg.LinkHop).
const hopFields = 5

// LinkPhaseOp is exchange.link_phase.
var LinkPhaseOp = &ir.OpDef{
	Name:    LinkPhaseOpName,
	Summary: "The link phase of a pipeline: the values that cross from one chip to another, and their schedule.",
	Description: "Operand i is a value computed by pipeline stage `ipu.stage` of its op, which stage " +
		"`to_stages[i]` reads on another chip (a value read by two later stages is two operands). " +
		"`hops` lists each transfer's route round the ring of IPU-Links: the hop count, then per hop the " +
		"chip it leaves, the neighbour it reaches, and the cycles it starts, has been sent and has " +
		"arrived, store and forward. `cycles` is the phase's length and `lower_bound` what no schedule " +
		"beats. The verifier holds the schedule to the module's target: routes from the producer's chip " +
		"to the reader's, hop after hop, no two hops holding one link direction at once " +
		"(ipupkg.CheckLinkRoutes), no hop faster than the links' rate or sooner than their latency " +
		"(runtime/pipeline.CheckHops), and `cycles` the last arrival. With `stage_chips = K` every stage spans " +
		"K chips (stage s on chips sK to sK + K − 1) and a value goes forward round the ring from its producer's " +
		"first chip to its reader's last, a route every byte's way lies on. pipeline-stages writes it; a pod " +
		"package carries the same schedule.",
	Example:  "exchange.link_phase %l6_out, %l13_out {cycles = 98104 : i64, hops = array<i64: 1, 0, 1, 0, 48552, 49052, 1, 1, 2, 0, 48552, 49052>, lower_bound = 49052 : i64, to_stages = array<i64: 1, 2>} : tensor<729x1152xf16>, tensor<729x1152xf16>",
	Operands: []ir.ValueDef{{Name: "values", Type: ir.AnyType, Kind: ir.Variadic}},
	Attributes: []ir.AttrDef{
		{Name: ToStagesAttrName, Kind: ir.DenseI64ArrayKind, Doc: "for each operand, the stage that reads it"},
		{Name: HopsAttrName, Kind: ir.DenseI64ArrayKind, Doc: "each transfer's hop count, then its hops: from, to, start, sent, end"},
		{Name: CyclesAttrName, Kind: ir.I64AttrKind, Doc: "the phase's length: its last hop's arrival"},
		{Name: LowerBoundAttrName, Kind: ir.I64AttrKind, Doc: "the busiest link direction's sending and one latency, or the longest route alone"},
		{Name: StageChipsAttrName, Kind: ir.I64AttrKind, Optional: true, Doc: "the chips each stage spans (absent: one)"},
	},
	AssemblyFormat: "$values attr-dict `:` type($values)",
	VerifyEnv:      verifyLinkPhase,
}

// LinkSchedule is a link phase's schedule in the runtime's terms: each
// operand's request and its hops.
type LinkSchedule struct {
	Requests []pipeline.LinkRequest
	Hops     [][]ipupkg.LinkHop
	// StageChips is how many chips each stage spans (0 or 1: one).
	StageChips int
}

// StageLinkRequest is the request that moves bytes from stage from to
// stage to when every stage spans span chips (stage s on chips s·span to
// s·span + span − 1): from the producer's first chip to the reader's last,
// forward where a stage spans several (ipupkg.Pod.LinkEnds, the package's
// rule).
func StageLinkRequest(from, to, span int, bytes int64) pipeline.LinkRequest {
	span = max(span, 1)
	return pipeline.LinkRequest{From: from * span, To: to*span + span - 1, Bytes: bytes, Forward: span > 1}
}

// LinkPhaseAttrs encodes a schedule as the op's attributes.
func LinkPhaseAttrs(ctx *ir.Context, s LinkSchedule, phase pipeline.LinkPhase) []ir.NamedAttr {
	var to, hops []int64
	span := max(s.StageChips, 1)
	for n, r := range s.Requests {
		to = append(to, int64(r.To/span))
		hops = append(hops, int64(len(s.Hops[n])))
		for _, h := range s.Hops[n] {
			hops = append(hops, int64(h.From), int64(h.To), h.Start, h.Sent, h.End)
		}
	}
	i64 := ctx.IntegerType(64, ir.Signless)
	attrs := []ir.NamedAttr{{Name: ToStagesAttrName, Value: ctx.DenseI64Array(to...)}, {Name: HopsAttrName, Value: ctx.DenseI64Array(hops...)},
		{Name: CyclesAttrName, Value: ctx.IntegerAttr(i64, phase.Cycles)}, {Name: LowerBoundAttrName, Value: ctx.IntegerAttr(i64, phase.LowerBound)}}
	if span > 1 {
		attrs = append(attrs, ir.NamedAttr{Name: StageChipsAttrName, Value: ctx.IntegerAttr(i64, int64(span))})
	}
	return attrs
}

// LinkScheduleOf decodes op's schedule: each operand's producer stage (its
// op's ipu.stage) to its reader's, its bytes, and its hops. On a pod every
// stage is the chip of its number.
func LinkScheduleOf(op *ir.Operation) (LinkSchedule, error) {
	to := op.Attr(ToStagesAttrName).(*ir.DenseArrayAttr).Ints
	flat := op.Attr(HopsAttrName).(*ir.DenseArrayAttr).Ints
	if len(to) != op.NumOperands() {
		return LinkSchedule{}, fmt.Errorf("%d operands but %d entries in '%s'", op.NumOperands(), len(to), ToStagesAttrName)
	}
	var s LinkSchedule
	if a, ok := op.Attr(StageChipsAttrName).(*ir.IntegerAttr); ok {
		if a.Int < 1 || a.Int > ipupkg.MaxPodStages {
			return LinkSchedule{}, fmt.Errorf("'%s' is %d: a stage spans 1 to %d chips", StageChipsAttrName, a.Int, ipupkg.MaxPodStages)
		}
		s.StageChips = int(a.Int)
	}
	span := max(s.StageChips, 1)
	at := 0
	for n, v := range op.Operands() {
		def := v.DefiningOp()
		var stage *ir.IntegerAttr
		if def != nil {
			stage, _ = def.Attr(tensor.StageAttr).(*ir.IntegerAttr)
		}
		if stage == nil {
			return LinkSchedule{}, fmt.Errorf("operand #%d is not computed by an op of a pipeline stage (no '%s')", n, tensor.StageAttr)
		}
		rt, ok := v.Type().(*ir.RankedTensorType)
		var bytes int64
		if ok {
			if et, ok := irelem.Of(rt.Elem); ok && ir.NumElements(rt.Dims) >= 0 {
				bytes = ir.NumElements(rt.Dims) * int64(et.Bytes())
			}
		}
		if bytes <= 0 {
			return LinkSchedule{}, fmt.Errorf("operand #%d is not a statically shaped tensor of a machine element type", n)
		}
		if to[n] <= stage.Int || to[n] >= ipupkg.MaxPodStages {
			return LinkSchedule{}, fmt.Errorf("operand #%d of stage %d goes to stage %d: a value goes to a later stage", n, stage.Int, to[n])
		}
		if at >= len(flat) || flat[at] < 1 || flat[at] > ipupkg.MaxLinkHops || at+1+int(flat[at])*hopFields > len(flat) {
			return LinkSchedule{}, fmt.Errorf("'%s' ends before transfer %d's hops, or gives it a count outside 1 to %d", HopsAttrName, n, ipupkg.MaxLinkHops)
		}
		k := int(flat[at])
		var hops []ipupkg.LinkHop
		for h := range k {
			f := flat[at+1+h*hopFields:]
			if f[0] < 0 || f[1] < 0 || f[0] >= ipupkg.MaxPodStages || f[1] >= ipupkg.MaxPodStages {
				return LinkSchedule{}, fmt.Errorf("transfer %d hop %d joins chips %d and %d", n, h, f[0], f[1])
			}
			hops = append(hops, ipupkg.LinkHop{From: int(f[0]), To: int(f[1]), Start: f[2], Sent: f[3], End: f[4]})
		}
		at += 1 + k*hopFields
		s.Requests = append(s.Requests, StageLinkRequest(int(stage.Int), int(to[n]), span, bytes))
		s.Hops = append(s.Hops, hops)
	}
	if at != len(flat) {
		return LinkSchedule{}, fmt.Errorf("'%s' has %d integers after the last transfer's hops", HopsAttrName, len(flat)-at)
	}
	return s, nil
}

func verifyLinkPhase(op *ir.Operation, env *ir.Env) error {
	s, err := LinkScheduleOf(op)
	if err != nil {
		return err
	}
	tg, ok := irtarget.FromEnv(env)
	if !ok {
		return fmt.Errorf("needs the module's target to check its schedule: the module has no '%s' attribute naming one", irtarget.ModuleAttr)
	}
	if !tg.MultiChip() {
		return fmt.Errorf("target %s has one chip: no value crosses a link", tg.Name)
	}
	routes := make([]ipupkg.LinkRoute, len(s.Requests))
	for n, r := range s.Requests {
		if r.To >= tg.Chips {
			return fmt.Errorf("transfer %d goes to stage %d; %s has %d chips, %d a stage", n, r.To/max(s.StageChips, 1), tg.Name, tg.Chips, max(s.StageChips, 1))
		}
		routes[n] = ipupkg.LinkRoute{From: r.From, To: r.To, Hops: s.Hops[n]}
	}
	if err := ipupkg.CheckLinkRoutes(routes, tg.Chips); err != nil {
		return err
	}
	phase, err := pipeline.CheckHops(s.Requests, s.Hops, tg)
	if err != nil {
		return err
	}
	cycles := op.Attr(CyclesAttrName).(*ir.IntegerAttr).Int
	bound := op.Attr(LowerBoundAttrName).(*ir.IntegerAttr).Int
	if cycles != phase.Cycles {
		return fmt.Errorf("'%s' is %d, but the last hop arrives at cycle %d", CyclesAttrName, cycles, phase.Cycles)
	}
	if bound < 0 || bound > cycles {
		return fmt.Errorf("'%s' %d is not between 0 and the phase's %d cycles", LowerBoundAttrName, bound, cycles)
	}
	if slices.ContainsFunc(s.Requests, func(r pipeline.LinkRequest) bool { return r.From == r.To }) {
		return fmt.Errorf("a transfer within one chip")
	}
	return nil
}
