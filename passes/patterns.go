package passes

import (
	"slices"
	"sort"
	"sync"

	"github.com/ipuir/ipuir/ir"
)

// PatternSet holds rewrite patterns indexed by the op they match, each
// list ordered by decreasing benefit (ties keep the order of addition).
// It is safe for concurrent use once built: canonicalize on functions in
// parallel shares one set.
type PatternSet struct {
	byRoot  map[string][]ir.RewritePattern
	anyRoot []ir.RewritePattern
	merged  sync.Map // op name -> []ir.RewritePattern, when anyRoot is non-empty
}

// NewPatternSet returns a set holding patterns.
func NewPatternSet(patterns ...ir.RewritePattern) *PatternSet {
	s := &PatternSet{byRoot: map[string][]ir.RewritePattern{}}
	s.Add(patterns...)
	return s
}

// Add adds patterns. Adding to a set in use is not safe.
func (s *PatternSet) Add(patterns ...ir.RewritePattern) {
	for _, p := range patterns {
		if p.Root() == "" {
			s.anyRoot = insertByBenefit(s.anyRoot, p)
		} else {
			s.byRoot[p.Root()] = insertByBenefit(s.byRoot[p.Root()], p)
		}
	}
	s.merged = sync.Map{}
}

func insertByBenefit(list []ir.RewritePattern, p ir.RewritePattern) []ir.RewritePattern {
	i := sort.Search(len(list), func(i int) bool { return list[i].Benefit() < p.Benefit() })
	return slices.Insert(list, i, p)
}

// Len is the number of patterns.
func (s *PatternSet) Len() int {
	n := len(s.anyRoot)
	for _, l := range s.byRoot {
		n += len(l)
	}
	return n
}

// All lists the patterns, ops' patterns by op name first, then those for
// any op.
func (s *PatternSet) All() []ir.RewritePattern {
	roots := make([]string, 0, len(s.byRoot))
	for r := range s.byRoot {
		roots = append(roots, r)
	}
	sort.Strings(roots)
	var out []ir.RewritePattern
	for _, r := range roots {
		out = append(out, s.byRoot[r]...)
	}
	return append(out, s.anyRoot...)
}

// Filter returns the patterns whose names are in enable (all when enable
// is empty) and not in disable, as canonicalize's enable-patterns and
// disable-patterns options select them.
func (s *PatternSet) Filter(enable, disable []string) *PatternSet {
	out := NewPatternSet()
	for _, p := range s.All() {
		if (len(enable) == 0 || slices.Contains(enable, p.Name())) && !slices.Contains(disable, p.Name()) {
			out.Add(p)
		}
	}
	return out
}

// forOp returns the patterns to try on an op named name, best first.
func (s *PatternSet) forOp(name string) []ir.RewritePattern {
	if len(s.anyRoot) == 0 {
		return s.byRoot[name]
	}
	if m, ok := s.merged.Load(name); ok {
		return m.([]ir.RewritePattern)
	}
	list := slices.Clone(s.byRoot[name])
	for _, p := range s.anyRoot {
		list = insertByBenefit(list, p)
	}
	s.merged.Store(name, list)
	return list
}

// CanonicalizationPatterns collects the Canonicalize patterns of every op
// registered in ctx.
func CanonicalizationPatterns(ctx *ir.Context) *PatternSet {
	set := NewPatternSet()
	for _, d := range ctx.Dialects() {
		for _, def := range d.Ops {
			set.Add(def.Canonicalize...)
		}
	}
	return set
}
