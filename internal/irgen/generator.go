package irgen

import (
	"math/rand/v2"
	"strings"
)

// Generate returns a random valid MLIR 19 file for seed, and how often it
// used each feature. The same seed and config always give the same bytes.
func Generate(seed uint64, cfg Config) ([]byte, Coverage) {
	g := &gen{
		r:   rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		cfg: cfg,
		cov: Coverage{},
	}
	if g.cfg.MaxDepth <= 0 {
		g.cfg.MaxDepth = DefaultConfig().MaxDepth
	}
	if g.cfg.MaxOpsPerBlock <= 0 {
		g.cfg.MaxOpsPerBlock = DefaultConfig().MaxOpsPerBlock
	}
	if g.cfg.MaxTopLevelOps <= 0 {
		g.cfg.MaxTopLevelOps = DefaultConfig().MaxTopLevelOps
	}
	return g.file(), g.cov
}

// gen is the state of one generated file.
type gen struct {
	r   *rand.Rand
	cfg Config
	cov Coverage

	seq int // makes value, block, symbol and alias names unique in the file

	// live are the value names defined in the open regions; closed are
	// names of regions already generated, which later regions may define
	// again (SiblingNameReuse) because they are visible nowhere.
	live, closed []string

	typeAliases []*typ
	attrAliases []attrAlias
	locTop      []locAlias // defined at the top: usable anywhere
	locEnd      []string   // defined at the end: only in a trailing loc(...)
	footer      strings.Builder
	resources   []string // "name: \"0x...\"" lines of the builtin resource section
	distinctIDs int
}

// on reports whether f may be generated.
func (g *gen) on(f Feature) bool { return g.cfg.Enabled(f) }

// mark counts one use of f.
func (g *gen) mark(f Feature) { g.cov[f]++ }

// maybe is true with probability p when f is enabled, and marks f then.
func (g *gen) maybe(f Feature, p float64) bool {
	if !g.on(f) || g.r.Float64() >= p {
		return false
	}
	g.mark(f)
	return true
}

func (g *gen) chance(p float64) bool { return g.r.Float64() < p }

// between returns a random int in [lo, hi].
func (g *gen) between(lo, hi int) int { return lo + g.r.IntN(hi-lo+1) }

func (g *gen) next() int { g.seq++; return g.seq }

// alt is one alternative of a choice: the feature it exercises (marked
// when chosen; "" for none), its weight and what it produces.
type alt struct {
	f  Feature
	w  int
	fn func() string
}

// choose picks one enabled alternative by weight; when all are off it
// falls back to the first.
func (g *gen) choose(alts ...alt) string {
	total := 0
	for _, a := range alts {
		if a.f == "" || g.on(a.f) {
			total += a.w
		}
	}
	if total == 0 {
		return alts[0].fn()
	}
	n := g.r.IntN(total)
	for _, a := range alts {
		if a.f != "" && !g.on(a.f) {
			continue
		}
		if n < a.w {
			if a.f != "" {
				g.mark(a.f)
			}
			return a.fn()
		}
		n -= a.w
	}
	panic("BUG: irgen choose fell through")
}

// pick returns a random element of xs.
func pick[T any](g *gen, xs []T) T { return xs[g.r.IntN(len(xs))] }

// shuffled returns xs in a random order.
func shuffled[T any](g *gen, xs []T) []T {
	out := append([]T(nil), xs...)
	g.r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// list joins n generated items with ", ".
func list(n int, item func(i int) string) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = item(i)
	}
	return strings.Join(parts, ", ")
}
