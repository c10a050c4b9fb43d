// Package interop proves that ipuir's textual IR interoperates with
// mlir-opt-19: random files from internal/irgen, covering every construct
// of the syntax, go through ipu-opt and then mlir-opt-19, and must come
// out exactly as mlir-opt-19 prints them on its own, in the generic and
// in the custom form. A round-trip property test needs no mlir-opt: what
// ipuir prints, it parses back to the same IR, and printing is a fixpoint.
//
// Constructs that cannot pass yet stay behind named generator knobs
// (knownGaps), each with its entry in /work/notes/interop-bugs.md, and
// TestInteropKnownGaps keeps checking them (go test -interop.gaps).
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
// `mlir-opt-19 FLAGS FILE` prints.
func TestInterop(t *testing.T) {
	mlir := mlirOpt(t)
	ipu := ipuOpt(t)
	cfg := passingConfig()
	cov := checkSeeds(t, mlir, ipu, cfg, seeds())
	if *oneSeed == 0 {
		if m := cov.Missing(enabled(cfg)); len(m) > 0 {
			t.Errorf("%d seeds never generated %v; raise -interop.seeds", len(seeds()), m)
		}
	}
}

// TestInteropKnownGaps checks each known gap on its own: the passing
// config with just that feature on, over seeds that generate it, against
// mlir-opt-19 and through the round trip.
func TestInteropKnownGaps(t *testing.T) {
	for _, gap := range knownGaps {
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
			t.Run("round-trip", func(t *testing.T) { roundTripGenerated(t, cfg, withGap) })
			t.Run("mlir-opt", func(t *testing.T) { checkSeeds(t, mlirOpt(t), ipuOpt(t), cfg, withGap) })
		})
	}
}

// checkSeeds runs checkSeed for each seed, a few at a time, and returns
// the features the seeds covered.
func checkSeeds(t *testing.T, mlir, ipu string, cfg irgen.Config, ss []uint64) irgen.Coverage {
	var mu sync.Mutex
	cov := irgen.Coverage{}
	sem := make(chan struct{}, parallelism())
	t.Run("seeds", func(t *testing.T) {
		for _, seed := range ss {
			t.Run(fmt.Sprint(seed), func(t *testing.T) {
				t.Parallel()
				sem <- struct{}{}
				defer func() { <-sem }()
				c := checkSeed(t, mlir, ipu, cfg, seed)
				mu.Lock()
				cov.Add(c)
				mu.Unlock()
			})
		}
	})
	return cov
}

// checkSeed generates one file and compares the tools on it.
func checkSeed(t *testing.T, mlir, ipu string, cfg irgen.Config, seed uint64) irgen.Coverage {
	src, cov := irgen.Generate(seed, cfg)
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
	return cov
}
