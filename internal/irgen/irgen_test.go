package irgen

import (
	"bytes"
	"testing"
)

func TestGenerateIsDeterministic(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		a, ca := Generate(seed, DefaultConfig())
		b, cb := Generate(seed, DefaultConfig())
		if !bytes.Equal(a, b) {
			t.Fatalf("seed %d: two runs differ", seed)
		}
		if len(ca) != len(cb) {
			t.Fatalf("seed %d: coverage differs", seed)
		}
	}
	a, _ := Generate(1, DefaultConfig())
	b, _ := Generate(2, DefaultConfig())
	if bytes.Equal(a, b) {
		t.Fatal("seeds 1 and 2 give the same file")
	}
}

// coverSeeds is how many seeds tests/interop runs; they must reach every
// feature.
const coverSeeds = 150

func TestSeedsCoverEveryFeature(t *testing.T) {
	cov := Coverage{}
	for seed := uint64(1); seed <= coverSeeds; seed++ {
		_, c := Generate(seed, DefaultConfig())
		cov.Add(c)
	}
	if m := cov.Missing(Features()); len(m) > 0 {
		t.Errorf("%d seeds never generate %v", coverSeeds, m)
	}
	for f := range cov {
		if !known(f) {
			t.Errorf("coverage names %q, which Features does not list", f)
		}
	}
}

func known(f Feature) bool {
	for _, k := range Features() {
		if k == f {
			return true
		}
	}
	return false
}

// baselines are features that other constructs fall back on, so that
// switching them off only makes them rarer.
var baselines = map[Feature]bool{
	AttrFloatDecimal: true, // what any float literal falls back to
}

func TestSwitchedOffFeaturesStayOff(t *testing.T) {
	for _, f := range Features() {
		if baselines[f] {
			continue
		}
		cfg := DefaultConfig().Without(f)
		for seed := uint64(1); seed <= 15; seed++ {
			if _, c := Generate(seed, cfg); c[f] > 0 {
				t.Errorf("%s is off, yet seed %d generates it %d times", f, seed, c[f])
				break
			}
		}
	}
}
