package check

import (
	"math"
	"strings"
	"testing"

	"github.com/ipuir/ipuir/dialects/tensor"
	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/eval"
	"github.com/ipuir/ipuir/ir"
)

func arr(vals ...float64) *eval.Array {
	return &eval.Array{Shape: []int{len(vals)}, Kind: elem.F32, Data: vals}
}

// An element passes within its bound plus the slack; NaN passes only
// against NaN, an infinity only against itself; each failing value is
// reported once with its first bad element and how many failed.
func TestCompareElements(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	for _, tc := range []struct {
		name      string
		got, want []float64
		bound     []float64
		opts      Options
		bad       int
		firstBad  int
	}{
		{"within the bound", []float64{1, 2.1}, []float64{1, 2}, []float64{0, 0.2}, Options{}, 0, 0},
		{"outside it", []float64{1, 2.5}, []float64{1, 2}, []float64{0, 0.2}, Options{}, 1, 1},
		{"the slack admits it", []float64{1, 2.5}, []float64{1, 2}, []float64{0, 0.2}, Options{Atol: 0.2, Rtol: 0.05}, 0, 0},
		{"exact without a bound", []float64{1, 2.0001}, []float64{1, 2}, nil, Options{}, 1, 1},
		{"NaN against NaN", []float64{nan, 1}, []float64{nan, 1}, nil, Options{}, 0, 0},
		{"NaN against a number", []float64{nan, 1}, []float64{0, 1}, []float64{inf, 0}, Options{}, 1, 0},
		{"an infinity against itself", []float64{inf, -inf}, []float64{inf, -inf}, nil, Options{}, 0, 0},
		{"an infinity against another", []float64{inf}, []float64{-inf}, []float64{inf}, Options{}, 1, 0},
	} {
		c := &checker{opts: tc.opts, rep: &Report{}}
		want := tensor.Value{Array: arr(tc.want...)}
		if tc.bound != nil {
			want.Bound = &eval.Array{Shape: []int{len(tc.bound)}, Kind: elem.F64, Data: tc.bound}
		}
		c.compare("output #0", "end-to-end", arr(tc.got...), want)
		if got := len(c.rep.Failures); (got > 0) != (tc.bad > 0) {
			t.Errorf("%s: %d failures, want %d bad elements", tc.name, got, tc.bad)
			continue
		}
		if tc.bad > 0 {
			f := c.rep.Failures[0]
			if f.Bad != tc.bad || f.Index != tc.firstBad || !strings.Contains(f.String(), "output #0, end-to-end check") {
				t.Errorf("%s: %+v", tc.name, f)
			}
		}
		if c.rep.Compared != int64(len(tc.got)) {
			t.Errorf("%s: compared %d of %d", tc.name, c.rep.Compared, len(tc.got))
		}
	}
}

// --sample-limit compares that many evenly spaced elements, and a value
// of another size than the reference's is a problem, not a comparison.
func TestSamplesAndSizes(t *testing.T) {
	c := &checker{opts: Options{SampleLimit: 4}, rep: &Report{}}
	vals := make([]float64, 100)
	bad := make([]float64, 100)
	bad[50] = 1 // sampled: 4 samples are 0, 25, 50, 75
	bad[51] = 1 // not sampled
	c.compare("output #0", "local", arr(bad...), tensor.Value{Array: arr(vals...)})
	if c.rep.Compared != 4 || len(c.rep.Failures) != 1 || c.rep.Failures[0].Bad != 1 || c.rep.Failures[0].Index != 50 {
		t.Errorf("sampled: compared %d, failures %+v", c.rep.Compared, c.rep.Failures)
	}
	c.compare("checkpoint 1", "local", arr(1, 2), tensor.Value{Array: arr(1, 2, 3)})
	if len(c.rep.Problems) != 1 || !strings.Contains(c.rep.Problems[0], "the device's value has 2 elements, the reference's 3") {
		t.Errorf("sizes: %v", c.rep.Problems)
	}
}

// A report passes only when something was compared, nothing failed and
// nothing contradicts the source; Explain lists at most MaxExplained
// failures and counts the rest.
func TestVerdict(t *testing.T) {
	if (&Report{}).Pass() {
		t.Error("a report that compared nothing passes")
	}
	r := &Report{Compared: 10}
	if !r.Pass() || !strings.HasPrefix(r.Line(), "numericalTest=PASS outputs=0 checkpoints=0 compared=10 ") {
		t.Errorf("%v %s", r.Pass(), r.Line())
	}
	r.Problems = []string{"a problem"}
	if r.Pass() || !strings.HasPrefix(r.Line(), "numericalTest=FAIL") {
		t.Error("a report with a problem passes")
	}
	for range MaxExplained + 3 {
		r.Failures = append(r.Failures, Failure{What: "x"})
	}
	lines := r.Explain()
	if len(lines) != 1+MaxExplained+1 || lines[len(lines)-1] != "and 3 more values outside their bounds" {
		t.Errorf("%d lines, the last %q", len(lines), lines[len(lines)-1])
	}
}

// A package naming a rewrite the checker cannot replay is refused by
// name; a known one is replayed on a clone, the source left as it was.
func TestReplayRewrites(t *testing.T) {
	ctx := ir.NewContext()
	tensor.Register(ctx)
	fn := ir.NewOperation(ctx, &ir.OperationState{Name: "test.fn", Loc: ctx.UnknownLoc(), NumRegions: 1})
	if _, err := replayRewrites(fn, []string{"no-such-rewrite"}); err == nil || !strings.Contains(err.Error(), "'no-such-rewrite', which this checker cannot replay") {
		t.Fatalf("an unknown rewrite: %v", err)
	}
	clone, err := replayRewrites(fn, []string{"matmul-reassociate"})
	if err != nil || clone == fn {
		t.Fatalf("matmul-reassociate on an empty function: %v (a clone: %v)", err, clone != fn)
	}
}
