package reference

import (
	"os"
	"testing"

	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/ir"
)

// BenchmarkAttentionFull runs the interpreter on the full-size attention
// block of the reference workload (729 tokens, hidden 1152, 16 heads, f16):
// about 5.1 G multiply-accumulates.
func BenchmarkAttentionFull(b *testing.B) {
	_, fn := buildAttention(b, fullAttention, func(c *ir.Context) ir.Type { return c.F16() })
	in := attentionInputs(b, fullAttention, elem.F16)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Run(fn, in, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAttentionSmall is the 64-token variant.
func BenchmarkAttentionSmall(b *testing.B) {
	_, fn := buildAttention(b, smallAttention, func(c *ir.Context) ir.Type { return c.F16() })
	in := attentionInputs(b, smallAttention, elem.F16)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Run(fn, in, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// TestFullAttentionMatchesOracle compares the full-size block with the
// float64 oracle. The oracle's plain loops take tens of seconds on two
// cores, so the test runs only when IPUIR_FULL_ATTENTION=1.
func TestFullAttentionMatchesOracle(t *testing.T) {
	if os.Getenv("IPUIR_FULL_ATTENTION") != "1" {
		t.Skip("set IPUIR_FULL_ATTENTION=1 to run the full-size oracle comparison")
	}
	maxErr, maxRef := attentionError(t, fullAttention, elem.F16, func(c *ir.Context) ir.Type { return c.F16() })
	t.Logf("f16 attention %v: max abs error %.3g, max |ref| %.3g", fullAttention, maxErr, maxRef)
	if maxErr > f16Tolerance(maxRef) {
		t.Fatalf("full attention differs from the oracle by %g", maxErr)
	}
}
