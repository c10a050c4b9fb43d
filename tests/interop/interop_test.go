// Package interop proves that ipuir's textual IR interoperates with
// mlir-opt-19: random files from internal/irgen, covering every construct
// of the syntax, go through ipu-opt and then mlir-opt-19, and must come
// out exactly as mlir-opt-19 prints them on its own, in the generic and
// in the custom form. A round-trip property test needs no mlir-opt: what
// ipuir prints, it parses back to the same IR, and printing is a fixpoint.
//
// Constructs that cannot pass yet stay behind named generator knobs
// (knownGaps), each with its entry in tests/interop/BUGS.md, and
// TestInteropKnownGaps keeps checking them (go test -interop.gaps).
// ipu-opt must also print exactly what mlir-opt-19 prints, as package
// printer means to, except for files with an exact gap: a construct whose
// printing differs (exactGaps) though mlir-opt reads it as the same IR.
// A failing seed is reproduced with `-interop.seed N`; its input and
// outputs are kept under $TMPDIR/ipuir-interop, and
// `go run ./internal/irgen/cmd/irgen -seed N` prints the input again.
package interop

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ipuir/ipuir/internal/irgen"
)

func TestMain(m *testing.M) {
	code := m.Run()
	removeBinary()
	os.Exit(code)
}

// A variant is one way of printing: both tools get the same flags.
type variant struct {
	name  string
	flags []string
}

var variants = []variant{
	{"generic", []string{"--allow-unregistered-dialect", "--mlir-print-op-generic", "--mlir-print-debuginfo"}},
	{"custom", []string{"--allow-unregistered-dialect", "--mlir-print-debuginfo"}},
}

// TestInterop: for every seed and variant,
// `ipu-opt FLAGS FILE | mlir-opt-19 FLAGS` prints what
// `mlir-opt-19 FLAGS FILE` prints; and, for every seed without an exact
// gap, `ipu-opt FLAGS FILE` itself prints that.
func TestInterop(t *testing.T) {
	mlir := mlirOpt(t)
	ipu := ipuOpt(t)
	cfg := passingConfig()
	cov, covExact := checkSeeds(t, mlir, ipu, cfg, seeds(), exactGapFeatures())
	if *oneSeed == 0 {
		if m := cov.Missing(enabled(cfg)); len(m) > 0 {
			t.Errorf("%d seeds never generated %v; raise -interop.seeds", len(seeds()), m)
		}
		var want []irgen.Feature
		for _, f := range enabled(cfg) {
			if !exactGapFeatures()[f] {
				want = append(want, f)
			}
		}
		if m := covExact.Missing(want); len(m) > 0 {
			t.Errorf("the seeds compared byte for byte never generated %v; raise -interop.seeds", m)
		}
	}
}

// TestInteropKnownGaps checks each known gap on its own: the passing
// config with just that feature on, over seeds that generate it, against
// mlir-opt-19 and through the round trip; and each exact gap over seeds
// that generate it, byte for byte.
func TestInteropKnownGaps(t *testing.T) {
	for _, gap := range append(append([]knownGap(nil), knownGaps...), exactGaps...) {
		t.Run(string(gap.feature), func(t *testing.T) {
			if !*runGaps {
				t.Skipf("known gap (%s); go test -interop.gaps checks it", gap.bug)
			}
			cfg := passingConfig()
			delete(cfg.Off, gap.feature)
			var withGap []uint64
			for seed := uint64(1); seed <= 3000 && len(withGap) < 20; seed++ {
				if _, c := irgen.Generate(seed, cfg); c[gap.feature] > 0 {
					withGap = append(withGap, seed)
				}
			}
			if len(withGap) == 0 {
				t.Fatalf("no seed up to 3000 generates %s", gap.feature)
			}
			exempt := exactGapFeatures()
			delete(exempt, gap.feature)
			t.Run("round-trip", func(t *testing.T) { roundTripGenerated(t, cfg, withGap) })
			t.Run("mlir-opt", func(t *testing.T) { checkSeeds(t, mlirOpt(t), ipuOpt(t), cfg, withGap, exempt) })
		})
	}
}

// checkSeeds runs checkSeed for each seed, a few at a time, and returns
// the features the seeds covered, all of them and those compared byte for
// byte.
func checkSeeds(t *testing.T, mlir, ipu string, cfg irgen.Config, ss []uint64, exempt map[irgen.Feature]bool) (all, exact irgen.Coverage) {
	var mu sync.Mutex
	all, exact = irgen.Coverage{}, irgen.Coverage{}
	sem := make(chan struct{}, parallelism())
	t.Run("seeds", func(t *testing.T) {
		for _, seed := range ss {
			t.Run(fmt.Sprint(seed), func(t *testing.T) {
				t.Parallel()
				sem <- struct{}{}
				defer func() { <-sem }()
				c, compared := checkSeed(t, mlir, ipu, cfg, seed, exempt)
				mu.Lock()
				defer mu.Unlock()
				all.Add(c)
				if compared {
					exact.Add(c)
				}
			})
		}
	})
	return all, exact
}

// checkSeed generates one file and compares the tools on it; the output
// of ipu-opt must equal mlir-opt-19's unless the file has a feature of
// exempt, and reports whether it was so compared.
func checkSeed(t *testing.T, mlir, ipu string, cfg irgen.Config, seed uint64, exempt map[irgen.Feature]bool) (irgen.Coverage, bool) {
	src, cov := irgen.Generate(seed, cfg)
	compareExactly := true
	for f := range exempt {
		if cov[f] > 0 {
			compareExactly = false
		}
	}
	dir := t.TempDir()
	file := fmt.Sprintf("seed-%d.mlir", seed)
	if err := os.WriteFile(filepath.Join(dir, file), src, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, v := range variants {
		theirs, err := run(dir, nil, mlir, append(v.flags, file)...)
		if err != nil {
			path := keep(t, file, string(src))
			t.Fatalf("seed %d: mlir-opt-19 rejects the generated file %s (a generator bug):\n%v", seed, path, err)
		}
		if v.name == "generic" {
			// The comparison below means something only where mlir-opt
			// reads back what it prints as the same IR.
			again, err := run(dir, theirs, mlir, v.flags...)
			if err != nil || string(again) != string(theirs) {
				path := keep(t, file, string(src))
				t.Fatalf("seed %d: mlir-opt-19 does not round-trip %s (a generator bug): %v\n%s",
					seed, path, err, cmp.Diff(lines(theirs), lines(again)))
			}
		}
		ours, err := run(dir, nil, ipu, append(v.flags, file)...)
		if err != nil {
			path := keep(t, file, string(src))
			t.Errorf("seed %d (%s): ipu-opt rejects %s, which mlir-opt-19 accepts:\n%v", seed, v.name, path, err)
			continue
		}
		if compareExactly && string(ours) != string(theirs) {
			path := keep(t, file, string(src),
				fmt.Sprintf("seed-%d.%s.mlir-opt", seed, v.name), string(theirs),
				fmt.Sprintf("seed-%d.%s.ipu-opt", seed, v.name), string(ours))
			t.Errorf("seed %d (%s): ipu-opt does not print %s as mlir-opt-19 does (-mlir-opt-19, +ipu-opt):\n%s",
				seed, v.name, path, cmp.Diff(lines(theirs), lines(ours)))
		}
		via, err := run(dir, ours, mlir, v.flags...)
		if err != nil {
			path := keep(t, file, string(src), fmt.Sprintf("seed-%d.%s.ipu-opt", seed, v.name), string(ours))
			t.Errorf("seed %d (%s): mlir-opt-19 rejects what ipu-opt prints for %s:\n%v", seed, v.name, path, err)
			continue
		}
		if diff := cmp.Diff(lines(theirs), lines(via)); diff != "" {
			path := keep(t, file, string(src),
				fmt.Sprintf("seed-%d.%s.mlir-opt", seed, v.name), string(theirs),
				fmt.Sprintf("seed-%d.%s.ipu-opt", seed, v.name), string(ours),
				fmt.Sprintf("seed-%d.%s.ipu-opt.mlir-opt", seed, v.name), string(via))
			t.Errorf("seed %d (%s): mlir-opt-19 reads ipu-opt's output of %s as different IR (-mlir-opt alone, +through ipu-opt):\n%s",
				seed, v.name, path, diff)
		}
	}
	return cov, compareExactly
}
