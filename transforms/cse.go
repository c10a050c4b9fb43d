package transforms

import (
	"unsafe"

	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/passes"
)

// CSE is the `cse` pass: it merges pure ops that compute the same thing
// (same name, attributes, properties, result types and operands, operands
// in any order for commutative ops) when the first dominates the second,
// and erases pure ops whose results are unused. Values known in a block
// are visible in the blocks it dominates and in the regions of
// non-isolated ops nested in it, never in enclosing or sibling regions;
// isolated ops start afresh; multi-block graph regions share nothing
// between blocks. As in MLIR, an op that is merged or erased is not looked
// into.
//
// Pure ops with regions merge, as in MLIR, when every region is one block
// and the bodies are equivalent (cse_regions.go): same argument types, the
// same ops in order, operands the same outer values or corresponding
// arguments and results (nested commutative operands are not reordered).
// Unlike MLIR, which trusts an op's declared purity, a body holding an op
// that is neither pure nor a terminator is never merged; nested regions of
// several blocks are not compared.
type CSE struct {
	NumCSE passes.Statistic `statistic:"num-cse'd" help:"Number of operations CSE'd"`
	NumDCE passes.Statistic `statistic:"num-dce'd" help:"Number of operations DCE'd"`
}

func (*CSE) Name() string    { return "cse" }
func (*CSE) Summary() string { return "Eliminate common sub-expressions" }
func (*CSE) Anchor() string  { return "" }

// DominanceInfo caches the dominance of the multi-block regions of an op
// as an analysis.
type DominanceInfo struct {
	regions map[*ir.Region]*ir.DominanceInfo
}

// Of returns the dominance of r's blocks.
func (d *DominanceInfo) Of(r *ir.Region) *ir.DominanceInfo {
	di, ok := d.regions[r]
	if !ok {
		di = ir.NewDominanceInfo(r)
		d.regions[r] = di
	}
	return di
}

func newDominanceInfo(*ir.Operation) *DominanceInfo {
	return &DominanceInfo{regions: map[*ir.Region]*ir.DominanceInfo{}}
}

func (c *CSE) Run(op *ir.Operation, pc *passes.PassContext) error {
	var dom *DominanceInfo
	s := &cseState{known: map[uint64][]*ir.Operation{}, dom: func() *DominanceInfo {
		if dom == nil {
			dom = passes.GetAnalysis(pc.Analyses(), newDominanceInfo)
		}
		return dom
	}}
	for _, r := range op.Regions() {
		s.region(r)
	}
	for _, o := range s.erase {
		o.Erase()
	}
	c.NumCSE.Add(uint64(s.numCSE))
	c.NumDCE.Add(uint64(s.numDCE))
	if s.numCSE == 0 && s.numDCE == 0 {
		pc.Analyses().PreserveAll()
	}
	return nil
}

// cseState is a scoped table of known ops: log records the hashes inserted
// since the program start, so that leaving a scope removes its entries.
type cseState struct {
	known          map[uint64][]*ir.Operation
	log            []uint64
	erase          []*ir.Operation
	numCSE, numDCE int
	dom            func() *DominanceInfo
}

func (s *cseState) region(r *ir.Region) {
	switch {
	case r.NumBlocks() == 0:
	case r.NumBlocks() == 1:
		mark := len(s.log)
		s.block(r.Front(), !ir.IsGraphRegion(r))
		s.popTo(mark)
	case ir.IsGraphRegion(r):
		// Without dominance, no block sees another's values.
		for _, b := range r.Blocks() {
			mark := len(s.log)
			s.block(b, false)
			s.popTo(mark)
		}
	default:
		di := s.dom().Of(r)
		children := map[*ir.Block][]*ir.Block{}
		for _, b := range r.Blocks()[1:] {
			if p := di.IDom(b); p != nil {
				children[p] = append(children[p], b)
			}
		}
		var walk func(b *ir.Block)
		walk = func(b *ir.Block) {
			mark := len(s.log)
			s.block(b, true)
			for _, c := range children[b] {
				walk(c)
			}
			s.popTo(mark)
		}
		walk(r.Front())
	}
}

func (s *cseState) popTo(mark int) {
	for i := len(s.log) - 1; i >= mark; i-- {
		h := s.log[i]
		bucket := s.known[h]
		if len(bucket) == 1 {
			delete(s.known, h)
		} else {
			s.known[h] = bucket[:len(bucket)-1]
		}
	}
	s.log = s.log[:mark]
}

func (s *cseState) block(b *ir.Block, ssaDominance bool) {
	for o := b.First(); o != nil; o = o.Next() {
		// As in MLIR's CSE, an op that is merged or erased is done with:
		// its regions go with it.
		if s.op(o, ssaDominance) || o.NumRegions() == 0 {
			continue
		}
		if o.HasTrait(ir.TraitIsolatedFromAbove) {
			saved, savedLog := s.known, s.log
			s.known, s.log = map[uint64][]*ir.Operation{}, nil
			for _, r := range o.Regions() {
				s.region(r)
			}
			s.known, s.log = saved, savedLog
		} else {
			for _, r := range o.Regions() {
				s.region(r)
			}
		}
	}
}

// op merges o into an equal op known before it, or erases it when it is
// dead, and reports whether it did either; otherwise a mergeable o
// becomes known.
func (s *cseState) op(o *ir.Operation, ssaDominance bool) bool {
	if o.HasTrait(ir.TraitTerminator) || !o.HasTrait(ir.TraitPure) {
		return false
	}
	if ir.IsTriviallyDead(o) {
		s.erase = append(s.erase, o)
		s.numDCE++
		return true
	}
	if o.NumRegions() > 0 && !ir.RegionsMergeable(o) {
		return false
	}
	h := cseHash(o)
	for _, existing := range s.known[h] {
		if !cseEqual(existing, o) {
			continue
		}
		if ssaDominance {
			o.ReplaceAllUsesWith(existing.Results())
		} else {
			// In a graph region existing may itself use o; leave those uses.
			for i, r := range o.Results() {
				r.ReplaceUsesWithIf(existing.Result(i), func(u *ir.OpOperand) bool { return u.Owner() != existing })
			}
			if !o.UseEmpty() {
				return false
			}
		}
		if _, unknown := existing.Loc().(*ir.UnknownLoc); unknown {
			if _, unknown := o.Loc().(*ir.UnknownLoc); !unknown {
				existing.SetLoc(o.Loc())
			}
		}
		s.erase = append(s.erase, o)
		s.numCSE++
		return true
	}
	s.known[h] = append(s.known[h], o)
	s.log = append(s.log, h)
	return false
}

func mix(h uint64, x uintptr) uint64 {
	h ^= uint64(x)
	h *= 0x100000001b3
	return h ^ h>>29
}

// cseHash hashes what cseEqual compares; commutative operands are
// combined with an order-independent sum.
func cseHash(o *ir.Operation) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(o.Name()); i++ {
		h = (h ^ uint64(o.Name()[i])) * 0x100000001b3
	}
	h = mix(h, ir.UniqueID(o.Props()))
	h = mix(h, ir.UniqueID(o.Attrs()))
	for _, r := range o.Results() {
		h = mix(h, ir.UniqueID(r.Type()))
	}
	if o.HasTrait(ir.TraitCommutative) {
		var sum uint64
		for i := 0; i < o.NumOperands(); i++ {
			sum += mix(0x9e3779b97f4a7c15, uintptr(unsafe.Pointer(o.Operand(i))))
		}
		return mix(h, uintptr(sum))
	}
	for i := 0; i < o.NumOperands(); i++ {
		h = mix(h, uintptr(unsafe.Pointer(o.Operand(i))))
	}
	return h
}

// cseEqual says whether two ops compute the same value, locations aside.
func cseEqual(a, b *ir.Operation) bool {
	if a.Name() != b.Name() || a.NumOperands() != b.NumOperands() || a.NumResults() != b.NumResults() ||
		ir.UniqueID(a.Props()) != ir.UniqueID(b.Props()) || ir.UniqueID(a.Attrs()) != ir.UniqueID(b.Attrs()) {
		return false
	}
	for i := 0; i < a.NumResults(); i++ {
		if a.Result(i).Type() != b.Result(i).Type() {
			return false
		}
	}
	if a.HasTrait(ir.TraitCommutative) {
		if !sameMultiset(a.Operands(), b.Operands()) {
			return false
		}
	} else {
		for i := 0; i < a.NumOperands(); i++ {
			if a.Operand(i) != b.Operand(i) {
				return false
			}
		}
	}
	return a.NumRegions() == 0 && b.NumRegions() == 0 || ir.RegionsEquivalent(a, b)
}

func sameMultiset(x, y []*ir.Value) bool {
	used := make([]bool, len(y))
outer:
	for _, v := range x {
		for j, w := range y {
			if !used[j] && v == w {
				used[j] = true
				continue outer
			}
		}
		return false
	}
	return true
}
