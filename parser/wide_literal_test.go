package parser

import (
	"strings"
	"testing"
	"time"

	"github.com/ipuir/ipuir/ir"
)

// wideLiteral is a module whose attribute is an integer literal of n
// digits typed i32, or a dense of one such element.
func wideLiteral(n int, dense bool) []byte {
	digits := strings.Repeat("9", n)
	attr := digits + " : i32"
	if dense {
		attr = "dense<" + digits + "> : tensor<1xi32>"
	}
	return []byte("module {\n  \"test.c\"() {v = " + attr + "} : () -> ()\n}\n")
}

// parseSeconds is the least time of a few parses of src, and the error.
func parseSeconds(src []byte) (float64, error) {
	best := -1.0
	var err error
	for range 5 {
		ctx := ir.NewContext()
		ctx.AllowUnregisteredDialects = true
		start := time.Now()
		_, err = ParseSourceString(ctx, src, Config{Filename: "wide.mlir"})
		if s := time.Since(start).Seconds(); best < 0 || s < best {
			best = s
		}
	}
	return best, err
}

// A literal wider than its type is refused from its digits, before it is
// converted (decimal conversion is quadratic: 4 MB of digits took 23 s),
// so parsing stays linear in the input: eight times the digits costs
// about eight times as long, not sixty-four. The bound asserted is on the
// ratio of two sizes (the least of five parses each), with room for a
// busy machine (x32; quadratic would be x64), not on wall time.
func TestWideLiteralsAreRefusedInLinearTime(t *testing.T) {
	for _, dense := range []bool{false, true} {
		small, err := parseSeconds(wideLiteral(1_000_000, dense))
		if err == nil || !strings.Contains(err.Error(), "out of range") && !strings.Contains(err.Error(), "does not fit") {
			t.Fatalf("dense=%v: a 1,000,000-digit i32 literal: %v", dense, err)
		}
		large, err := parseSeconds(wideLiteral(8_000_000, dense))
		if err == nil {
			t.Fatalf("dense=%v: an 8,000,000-digit i32 literal parsed", dense)
		}
		ratio := large / max(small, 1e-6)
		t.Logf("dense=%v: 1 MB of digits in %.3f s, 8 MB in %.3f s: ×%.1f for ×8 the input", dense, small, large, ratio)
		if ratio > 32 {
			t.Errorf("dense=%v: ×%.1f the time for ×8 the digits: not linear", dense, ratio)
		}
	}
}

func BenchmarkParseWideLiteral4MB(b *testing.B) {
	src := wideLiteral(4_000_000, false)
	for b.Loop() {
		ctx := ir.NewContext()
		ctx.AllowUnregisteredDialects = true
		ParseSourceString(ctx, src, Config{Filename: "wide.mlir"})
	}
}
