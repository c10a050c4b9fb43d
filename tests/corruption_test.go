package tests

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ipuir/ipuir/numeric"
	"github.com/ipuir/ipuir/runtime/ipupkg"
	"github.com/ipuir/ipuir/target"
)

// corruptible is compiled for test16 and corrupted below: a dense
// constant of distinct values feeds the computation, and the program has
// elementwise, reduction, movement and matmul instructions.
const corruptible = `module attributes {ipu.target = "test16"} {
  func.func @f(%x: tensor<4x8xf16>, %w: tensor<8x8xf16>) -> (tensor<4x8xf16>, tensor<4xf16>) {
    %c = tensor.constant dense<[0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 0.875, 1.0, 1.125, 1.25, 1.375, 1.5, 1.625, 1.75, 1.875, 2.0, 2.125, 2.25, 2.375, 2.5, 2.625, 2.75, 2.875, 3.0, 3.125, 3.25, 3.375, 3.5, 3.625, 3.75, 3.875, 4.0]> : tensor<32xf16>
    %c2 = tensor.reshape %c : tensor<32xf16> -> tensor<4x8xf16>
    %a = tensor.mul %x, %c2 : tensor<4x8xf16>
    %e = tensor.tanh %a : tensor<4x8xf16>
    %t = tensor.transpose %e permutation = [1, 0] : tensor<4x8xf16> -> tensor<8x4xf16>
    %u = tensor.transpose %t permutation = [1, 0] : tensor<8x4xf16> -> tensor<4x8xf16>
    %m = tensor.matmul %u, %w : tensor<4x8xf16>, tensor<8x8xf16> -> tensor<4x8xf16>
    %s = tensor.sub %m, %e : tensor<4x8xf16>
    %r = tensor.reduce_sum %s axes = [1] : tensor<4x8xf16> -> tensor<4xf16>
    return %s, %r : tensor<4x8xf16>, tensor<4xf16>
  }
}
`

// TestCorruptedPackagesNeverPass changes a compiled package in one place
// that bears meaning, reseals it (Encode writes the checksums and the
// digest anew, as an attacker or a buggy tool would), and runs it: each
// must be refused at load, fault, or FAIL the check, never PASS. The
// untouched package passes, so the harness itself can pass.
func TestCorruptedPackagesNeverPass(t *testing.T) {
	tg, err := target.Lookup("test16")
	if err != nil {
		t.Fatal(err)
	}
	pkg, reason, err := compileProgram(corruptible, tg)
	if err != nil || reason != "" {
		t.Fatalf("compile: %v %s", err, reason)
	}
	if verdict := corruptRun(t, pkg, corruptible, tg); verdict != "PASS" {
		t.Fatalf("the untouched package: %s", verdict)
	}
	clone := func() *ipupkg.Package {
		q, _, err := ipupkg.Decode(pkg.Encode())
		if err != nil {
			t.Fatal(err)
		}
		return q
	}
	cases := 0
	expectNoPass := func(what string, q *ipupkg.Package, against string) {
		t.Helper()
		cases++
		if verdict := corruptRun(t, q, against, tg); verdict == "PASS" {
			t.Errorf("%s: the corrupted package passed", what)
		} else {
			t.Logf("%s: %s", what, firstLine(verdict))
		}
	}

	// Each element of the dense constant.
	dense := slices.IndexFunc(pkg.Buffers, func(b ipupkg.Buffer) bool { return b.Init != nil && !b.Init.Splat && len(b.Init.Data) == 64 })
	if dense < 0 {
		t.Fatal("the package has no 32-element dense constant")
	}
	for k := range 32 {
		q := clone()
		d := q.Buffers[dense].Init.Data
		v := numeric.F16ToFloat64(binary.LittleEndian.Uint16(d[2*k:]))
		binary.LittleEndian.PutUint16(d[2*k:], numeric.F16FromFloat64(v+0.5))
		expectNoPass(fmt.Sprintf("constant element %d", k), q, corruptible)
	}

	// Each instruction's function (vector) or reduction, and its operands
	// swapped where it has two of one type.
	for i, in := range pkg.Program {
		for p, pr := range in.Params {
			if pr.Key != "fn" {
				continue
			}
			for _, other := range []string{"add", "sub", "mul", "max", "exp", "tanh", "sum"} {
				if other == pr.Str {
					continue
				}
				q := clone()
				q.Program[i].Params[p].Str = other
				expectNoPass(fmt.Sprintf("instruction %d (%s %s) as %s", i, in.Op, pr.Str, other), q, corruptible)
				break
			}
		}
		if fn, _ := in.Param("fn"); in.Op == ipupkg.OpVector && len(in.Operands) == 3 && in.Operands[0] != in.Operands[1] &&
			!slices.Contains([]string{"add", "mul", "max"}, fn.Str) { // commutative: a swap means the same
			q := clone()
			ops := q.Program[i].Operands
			ops[0], ops[1] = ops[1], ops[0]
			expectNoPass(fmt.Sprintf("instruction %d (%s) with its inputs swapped", i, in.Op), q, corruptible)
		}
	}

	// The output stream read from another buffer of its type.
	for si, s := range pkg.Streams {
		if !s.Output {
			continue
		}
		for b, buf := range pkg.Buffers {
			if b == s.Buffer || buf.Elem != s.Elem || !slices.Equal(buf.Shape, s.Shape) || buf.Init != nil {
				continue
			}
			q := clone()
			q.Streams[si].Buffer = b
			expectNoPass(fmt.Sprintf("output #%d read from buffer %d (%s)", s.Index, b, buf.Name), q, corruptible)
		}
	}

	// Checkpoints dropped: one, and all. Two values need none, and their
	// checkpoints may go: the reshaped constant is computed from no input
	// (a compiler may fold it into the constant), and the transpose of the
	// transpose is bit for bit the tanh it started from (a compiler may
	// fold it away); an error in either shows where it is used.
	needNone := [][2]int{{4, 11}, {8, 10}} // their places in the source
	for k := range pkg.Checkpoints {
		q := clone()
		q.Checkpoints = slices.Delete(q.Checkpoints, k, k+1)
		what := fmt.Sprintf("checkpoint %d (%s) dropped", k, pkg.Checkpoints[k].Name)
		if slices.Contains(needNone, [2]int{pkg.Checkpoints[k].Line, pkg.Checkpoints[k].Column}) {
			if verdict := corruptRun(t, q, corruptible, tg); verdict != "PASS" {
				t.Errorf("%s: a value that needs no checkpoint: %s", what, verdict)
			}
			continue
		}
		expectNoPass(what, q, corruptible)
	}
	q := clone()
	q.Checkpoints = nil
	expectNoPass("every checkpoint dropped", q, corruptible)

	// The embedded source changed together with the program (the
	// constant, in both): the package agrees with itself, so only the
	// user's own source tells (--check-against).
	q = clone()
	d := q.Buffers[dense].Init.Data
	binary.LittleEndian.PutUint16(d, numeric.F16FromFloat64(0.5))
	q.Source = bytes.Replace(q.Source, []byte("dense<[0.125,"), []byte("dense<[0.5,"), 1)
	if verdict := corruptRun(t, q, string(q.Source), tg); verdict != "PASS" {
		t.Fatalf("a package consistent with its changed source should pass against it: %s", verdict)
	}
	expectNoPass("source and program changed together, checked against the user's source", q, corruptible)

	if cases < 50 {
		t.Errorf("only %d corruptions tried", cases)
	}
	t.Logf("%d corrupted packages, none passed", cases)
}

// corruptRun runs pkg (through the wire format) against the source text
// and says PASS, or why not.
func corruptRun(t *testing.T, pkg *ipupkg.Package, source string, tg *target.Target) string {
	t.Helper()
	back, _, err := ipupkg.Decode(pkg.Encode())
	if err != nil {
		return "refused by the reader: " + err.Error()
	}
	rep, err := runAndCheck(back, source, tg, 5)
	if err != nil {
		return "refused: " + err.Error()
	}
	if !rep.Pass() {
		return rep.Summary()
	}
	return "PASS"
}

func firstLine(s string) string {
	lines := strings.SplitN(s, "\n", 3)
	if len(lines) > 1 && strings.HasPrefix(lines[0], "numericalTest=") {
		return lines[1]
	}
	return lines[0]
}

// convChain is two convolutions with an activation between, channels
// first as ONNX has them: sink-transposes leaves the first one's value
// channels last, so its checkpoint carries a permutation.
const convChain = `module attributes {ipu.target = "test16"} {
  func.func @f(%x: tensor<1x4x6x6xf32>, %w1: tensor<4x4x3x3xf32>, %w2: tensor<4x4x3x3xf32>) -> tensor<1x4x6x6xf32> {
    %a = tensor.conv %x, %w1 strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] groups = 1 : tensor<1x4x6x6xf32>, tensor<4x4x3x3xf32> -> tensor<1x4x6x6xf32>
    %e = tensor.exp %a : tensor<1x4x6x6xf32>
    %b = tensor.conv %e, %w2 strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] groups = 1 : tensor<1x4x6x6xf32>, tensor<4x4x3x3xf32> -> tensor<1x4x6x6xf32>
    return %b : tensor<1x4x6x6xf32>
  }
}`

// A checkpoint's permutation is applied, not trusted: the value held
// channels last compares with the source once transposed back, and any
// other permutation of it (the height and width swapped keep its shape)
// or none fails the check.
func TestPermutedCheckpointsAreCompared(t *testing.T) {
	tg, err := target.Lookup("test16")
	if err != nil {
		t.Fatal(err)
	}
	pkg, reason, err := compileProgram(convChain, tg)
	if err != nil || reason != "" {
		t.Fatalf("compile: %v %s", err, reason)
	}
	permuted := slices.IndexFunc(pkg.Checkpoints, func(c ipupkg.Checkpoint) bool { return len(c.Permutation) > 0 })
	if permuted < 0 {
		t.Fatalf("no checkpoint carries a permutation: %+v", pkg.Checkpoints)
	}
	if verdict := corruptRun(t, pkg, convChain, tg); verdict != "PASS" {
		t.Fatalf("the untouched package: %s", verdict)
	}
	compared := 0
	for _, perm := range [][]int{{0, 3, 2, 1}, {0, 1, 2, 3}, nil} {
		q, _, err := ipupkg.Decode(pkg.Encode())
		if err != nil {
			t.Fatal(err)
		}
		q.Checkpoints[permuted].Permutation = perm
		if verdict := corruptRun(t, q, convChain, tg); verdict == "PASS" {
			t.Errorf("checkpoint %d transposed by %v instead of %v passed", permuted, perm, pkg.Checkpoints[permuted].Permutation)
		}
		compared++
	}
	t.Logf("%d wrong permutations of checkpoint %d (%v) refused", compared, permuted, pkg.Checkpoints[permuted].Permutation)
}
