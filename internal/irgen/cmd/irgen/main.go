// Command irgen prints the file that internal/irgen generates for a seed,
// to reproduce and minimise what tests/interop reports.
//
//	go run ./internal/irgen/cmd/irgen -seed 17 > /tmp/s17.mlir
//	go run ./internal/irgen/cmd/irgen -seed 17 -without attr-distinct,loc-fused -coverage
package main

import (
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/ipuir/ipuir/internal/irgen"
)

func main() {
	seed := flag.Uint64("seed", 1, "seed of the generated file")
	without := flag.String("without", "", "comma-separated features to switch off")
	coverage := flag.Bool("coverage", false, "print the features used to stderr")
	flag.Parse()
	cfg := irgen.DefaultConfig()
	if *without != "" {
		var off []irgen.Feature
		for _, f := range strings.Split(*without, ",") {
			off = append(off, irgen.Feature(strings.TrimSpace(f)))
		}
		cfg = cfg.Without(off...)
	}
	src, cov := irgen.Generate(*seed, cfg)
	os.Stdout.Write(src)
	if *coverage {
		var names []string
		for f, n := range cov {
			names = append(names, fmt.Sprintf("%s=%d", f, n))
		}
		sort.Strings(names)
		fmt.Fprintln(os.Stderr, strings.Join(names, " "))
	}
}
