package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func runTool(args ...string) (int, string, string) {
	var out, errs bytes.Buffer
	code := run(context.Background(), args, &out, &errs)
	return code, out.String(), errs.String()
}

// --check-fail compiles each candidate with ipu-translate and runs it with
// ipu-run --check: here stand-ins on PATH whose check fails while the
// program holds a tensor.exp. The reduction keeps the exp alone.
func TestCheckFailWithStandIns(t *testing.T) {
	bin := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write("ipu-translate", "#!/bin/sh\n# --emit-package IN -o OUT\ncp \"$2\" \"$4\"\n")
	write("ipu-run", "#!/bin/sh\nif grep -q tensor.exp \"$1\"; then echo numericalTest=FAIL; exit 1; fi\necho numericalTest=PASS\n")
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	out := filepath.Join(t.TempDir(), "reduced.ipuir")
	code, _, errs := runTool("../../tests/reduce/Inputs/crash.ipuir", "--check-fail", "-o", out, "-j", "3")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	got, _ := os.ReadFile(out)
	if strings.Count(string(got), " = tensor.") != 1 || !strings.Contains(string(got), "tensor.exp %arg0") {
		t.Errorf("reduced to:\n%s", got)
	}
}

// The reduction does not depend on how many tests run at once.
func TestDeterministic(t *testing.T) {
	dir := t.TempDir()
	var outs []string
	for _, jobs := range []string{"1", "4"} {
		out := filepath.Join(dir, "r"+jobs+".ipuir")
		code, _, errs := runTool("../../tests/reduce/Inputs/crash.ipuir", "--test=sh", "--test-arg=../../tests/reduce/Inputs/exp-is-interesting.sh", "-o", out, "-j", jobs)
		if code != 0 {
			t.Fatalf("-j %s: exit %d: %s", jobs, code, errs)
		}
		b, _ := os.ReadFile(out)
		outs = append(outs, string(b))
	}
	if outs[0] != outs[1] || !strings.Contains(outs[0], "tensor.exp") {
		t.Errorf("-j 1 and -j 4 differ:\n%s\n---\n%s", outs[0], outs[1])
	}
}

// Every edit verifies before a test sees it: cutting an op gives its
// results' users new function arguments; returning an op's results drops
// what came after; an op index past the end applies nothing.
func TestEdits(t *testing.T) {
	t1, t2, t3 := source{file: "t.ipuir"}, source{file: "t2.ipuir"}, source{file: "t3.ipuir"}
	src := []byte(`module {
  func.func @f(%x: tensor<4xf16>) -> tensor<4xf16> {
    %a = tensor.tanh %x : tensor<4xf16>
    %b = tensor.exp %a : tensor<4xf16>
    %c = tensor.add %b, %x : tensor<4xf16>
    return %c : tensor<4xf16>
  }
}
`)
	m, err := t1.parse(src)
	if err != nil {
		t.Fatal(err)
	}
	text, _ := print(m)
	p := program{text: text, ops: 3}
	cut, ok := t1.apply(p, edit{kind: cutOp, at: 1})
	if !ok || cut.ops != 1 || !strings.Contains(string(cut.text), "tensor.add %arg1, %arg0") {
		t.Errorf("cut the exp: %v\n%s", ok, cut.text)
	}
	ret, ok := t1.apply(p, edit{kind: returnOp, at: 1})
	if !ok || ret.ops != 2 || !strings.Contains(string(ret.text), "return %1 : tensor<4xf16>") || strings.Contains(string(ret.text), "tensor.add") {
		t.Errorf("return the exp: %v\n%s", ok, ret.text)
	}
	if _, ok := t1.apply(p, edit{kind: cutOp, at: 7}); ok {
		t.Error("an edit of an op that does not exist applied")
	}
	zero, ok := t1.apply(p, edit{kind: constantOp, at: 1})
	if !ok || !strings.Contains(string(zero.text), "tensor.constant dense<0.000000e+00> : tensor<4xf16>") || strings.Contains(string(zero.text), "tensor.tanh") ||
		!strings.Contains(string(zero.text), "(%arg0: tensor<4xf16>) -> tensor<4xf16>") {
		t.Errorf("the exp as a constant: %v\n%s", ok, zero.text)
	}
	// A discardable attribute goes; a function nothing calls goes.
	two := []byte(`module {
  func.func @g(%x: tensor<4xf16>) -> tensor<4xf16> {
    %a = tensor.tanh %x {ipu.stage = 1 : i64} : tensor<4xf16>
    return %a : tensor<4xf16>
  }
  func.func @h() {
    return
  }
}
`)
	m2, err := t2.parse(two)
	if err != nil {
		t.Fatal(err)
	}
	text2, _ := print(m2)
	p2 := program{text: text2, ops: 1}
	if d, ok := t2.apply(p2, edit{kind: dropAttr, at: 0, attr: "ipu.stage"}); !ok || strings.Contains(string(d.text), "ipu.stage") {
		t.Errorf("drop ipu.stage: %v\n%s", ok, d.text)
	}
	if d, ok := t2.apply(p2, edit{kind: eraseFunction, at: 1}); !ok || strings.Contains(string(d.text), "@h") {
		t.Errorf("erase @h: %v\n%s", ok, d.text)
	}
	if got := len(edits(m2)); got != 9 {
		t.Errorf("%d edits of the two functions, want cut, return, constant and drop of the tanh, bypass of the tanh, erase of each function, 4 to 1 and to 2: 9", got)
	}
	// A function of two results returns one.
	three := []byte(`module {
  func.func @k(%x: tensor<4xf16>) -> (tensor<4xf16>, tensor<4xf16>) {
    %a = tensor.tanh %x : tensor<4xf16>
    %b = tensor.exp %x : tensor<4xf16>
    return %a, %b : tensor<4xf16>, tensor<4xf16>
  }
}
`)
	m3, err := t3.parse(three)
	if err != nil {
		t.Fatal(err)
	}
	text3, _ := print(m3)
	if d, ok := t3.apply(program{text: text3, ops: 2}, edit{kind: dropResult, at: 0, attr: "0"}); !ok || d.ops != 1 ||
		strings.Contains(string(d.text), "tensor.tanh") || !strings.Contains(string(d.text), "-> tensor<4xf16>") {
		t.Errorf("drop result 0: %v\n%s", ok, d.text)
	}
}

func TestUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{nil, 2, "give one file"},
		{[]string{"x.ipuir"}, 2, "choose one test"},
		{[]string{"x.ipuir", "--diagnostic=a", "--crash=b"}, 2, "choose one test"},
		{[]string{"nosuch.ipuir", "--diagnostic=a"}, 1, "nosuch.ipuir"},
		{[]string{"../../tests/reduce/Inputs/crash.ipuir", "--diagnostic=("}, 1, "--diagnostic=("},
		{[]string{"../../tests/reduce/Inputs/crash.ipuir", "--test=/nonexistent/tester"}, 1, "/nonexistent/tester"},
	} {
		code, _, errs := runTool(c.args...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("ipu-reduce %v: exit %d: %s (want %d, %q)", c.args, code, errs, c.code, c.want)
		}
	}
}

// A program of 3,000 ops is halved at sixteenths until it is small, so a
// round costs a few dozen candidates, not one per op: it reduces to the
// one exp in a few hundred tests.
func TestLargeProgramIsHalvedFirst(t *testing.T) {
	var b strings.Builder
	b.WriteString("module {\n  func.func @f(%x: tensor<4xf16>) -> tensor<4xf16> {\n")
	cur := "%x"
	for i := range 3000 {
		op := "tensor.tanh " + cur
		switch {
		case i == 1777:
			op = "tensor.exp " + cur
		case i%2 == 1:
			op = "tensor.add " + cur + ", %x"
		}
		fmt.Fprintf(&b, "    %%v%d = %s : tensor<4xf16>\n", i, op)
		cur = fmt.Sprintf("%%v%d", i)
	}
	fmt.Fprintf(&b, "    return %s : tensor<4xf16>\n  }\n}\n", cur)
	file := filepath.Join(t.TempDir(), "big.ipuir")
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := source{file: file}.parse([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	text, _ := print(m)
	interesting := func(_ context.Context, text []byte) (bool, error) {
		return bytes.Contains(text, []byte("tensor.exp")), nil
	}
	got, tested, err := reduce(context.Background(), source{file: file}, program{text: text, ops: 3000}, interesting, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.ops != 1 || !bytes.Contains(got.text, []byte("tensor.exp %arg0")) || tested > 1000 {
		t.Errorf("reduced to %d ops in %d tests:\n%s", got.ops, tested, got.text)
	}
	t.Logf("3,000 ops to %d in %d tests", got.ops, tested)
}

// Ops in regions, the regions and the blocks of unknown dialects' ops,
// and tensor dimensions reduce too; what an unknown op is there for (its
// effect) stays unless an edit of its own removes it.
func TestRegionsBlocksAndTypes(t *testing.T) {
	src := source{file: "r.ipuir", unregistered: true}
	parse := func(text string) program {
		t.Helper()
		m, err := src.parse([]byte(text))
		if err != nil {
			t.Fatal(err)
		}
		printed, _ := print(m)
		return measure(m, printed)
	}
	scoped := parse(`module {
  func.func @f(%x: tensor<4x8xf16>) -> tensor<4x8xf16> {
    "x.scope"() ({
      %a = tensor.exp %x : tensor<4x8xf16>
      "x.use"(%a) : (tensor<4x8xf16>) -> ()
      "x.yield"() : () -> ()
    }) : () -> ()
    %b = tensor.tanh %x : tensor<4x8xf16>
    return %b : tensor<4x8xf16>
  }
}
`)
	if scoped.ops != 5 {
		t.Fatalf("%d reducible ops, want the scope, the exp, the use, the yield (an unknown op is no known terminator) and the tanh", scoped.ops)
	}
	if got, ok := src.apply(scoped, edit{kind: clearRegion, at: 0}); !ok || strings.Contains(string(got.text), "tensor.exp") || got.ops != 2 {
		t.Errorf("clear the scope's region: %v\n%s", ok, got.text)
	}
	if got, ok := src.apply(scoped, edit{kind: cutOp, at: 1}); !ok || !strings.Contains(string(got.text), `"x.use"(%arg1)`) {
		t.Errorf("cut the nested exp: %v\n%s", ok, got.text)
	}
	if got, ok := src.apply(scoped, edit{kind: hoistRegion, at: 0}); !ok || strings.Contains(string(got.text), "x.scope") ||
		!strings.Contains(string(got.text), `"x.use"(%0)`) {
		t.Errorf("hoist the scope's region: %v\n%s", ok, got.text)
	}
	if got, ok := src.apply(scoped, edit{kind: bypassOp, at: 4, sub: 0}); !ok || strings.Contains(string(got.text), "tensor.tanh") ||
		!strings.Contains(string(got.text), "return %arg0") {
		t.Errorf("bypass the tanh: %v\n%s", ok, got.text)
	}
	if _, ok := src.apply(scoped, edit{kind: returnOp, at: 1}); ok {
		t.Error("returned a nested op's results")
	}
	if got, ok := src.apply(scoped, edit{kind: shrinkDim, attr: "8", sub: 1}); !ok || !strings.Contains(string(got.text), "tensor<4x1xf16>") ||
		strings.Contains(string(got.text), "x8x") || compare(got, scoped) >= 0 {
		t.Errorf("8 to 1: %v\n%s", ok, got.text)
	}
	if got, ok := src.apply(scoped, edit{kind: shrinkDim, attr: "8", sub: 4}); !ok || !strings.Contains(string(got.text), "tensor<4x4xf16>") {
		t.Errorf("8 to 4: %v\n%s", ok, got.text)
	}
	branches := parse(`module {
  func.func @g(%x: tensor<4xf16>, %c: i1) -> tensor<4xf16> {
    "x.cond_br"(%c)[^bb1, ^bb2] : (i1) -> ()
  ^bb1:
    %a = tensor.exp %x : tensor<4xf16>
    return %a : tensor<4xf16>
  ^bb2:
    %b = tensor.tanh %x : tensor<4xf16>
    return %b : tensor<4xf16>
  }
}
`)
	got, ok := src.apply(branches, edit{kind: eraseBlock, at: 1})
	if !ok || strings.Contains(string(got.text), "tensor.tanh") || !strings.Contains(string(got.text), `"x.cond_br"(%arg1)[^bb1]`) {
		t.Errorf("erase ^bb2: %v\n%s", ok, got.text)
	}
	// Erasing the other block leaves the unknown branch with no successor,
	// which the verifier allows of an unknown op, and %x unused.
	if got, ok := src.apply(got, edit{kind: eraseBlock, at: 0}); !ok || strings.Contains(string(got.text), "^bb") ||
		!strings.Contains(string(got.text), "@g(%arg0: i1)") {
		t.Errorf("erase ^bb1: %v\n%s", ok, got.text)
	}
	// A constant of many elements becomes a zero splat.
	consts := parse(`module {
  func.func @c() -> tensor<4xf16> {
    %c = tensor.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf16>
    return %c : tensor<4xf16>
  }
}
`)
	if got, ok := src.apply(consts, edit{kind: constantOp, at: 0}); !ok || !strings.Contains(string(got.text), "dense<0.000000e+00> : tensor<4xf16>") ||
		compare(got, consts) >= 0 {
		t.Errorf("splat the constant: %v\n%s", ok, got.text)
	}
	kinds := map[editKind]int{}
	m, _ := src.parse(branches.text)
	for _, e := range edits(m) {
		kinds[e.kind]++
	}
	if kinds[eraseBlock] != 2 || kinds[mergeBlock] != 2 || kinds[shrinkDim] != 2 {
		t.Errorf("edits: %v, want two blocks to erase or merge and 4 to 1 and to 2", kinds)
	}
	// A block whose one predecessor branches only to it joins it.
	one := parse(`module {
  func.func @h(%x: tensor<4xf16>, %c: i1) -> tensor<4xf16> {
    "x.br"(%c)[^bb1] : (i1) -> ()
  ^bb1:
    %a = tensor.exp %x : tensor<4xf16>
    return %a : tensor<4xf16>
  }
}
`)
	if got, ok := src.apply(one, edit{kind: mergeBlock, at: 0}); !ok || strings.Contains(string(got.text), "^bb") || strings.Contains(string(got.text), "x.br") ||
		!strings.Contains(string(got.text), "@h(%arg0: tensor<4xf16>)") {
		t.Errorf("merge ^bb1: %v\n%s", ok, got.text)
	}
	if _, ok := src.apply(branches, edit{kind: mergeBlock, at: 0}); ok {
		t.Error("merged a block into a predecessor that branches elsewhere too")
	}
}

// A test that outlives --timeout is killed with everything it started (its
// process group): a script whose child keeps running no longer hangs the
// reducer or leaves the child behind. Why the program as it is was not
// interesting is said: out of time, killed by a signal, or the exit
// status. A --timeout of zero or less is a usage error.
func TestTimedOutTestsAreKilledWholeAndExplained(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "p.ipuir")
	if err := os.WriteFile(prog, []byte("module {\n  func.func @f() {\n    return\n  }\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	pidFile := filepath.Join(dir, "child.pid")
	hang := script("hang.sh", "sleep 1000 &\necho $! > "+pidFile+"\nwait\n")
	start := time.Now()
	code, _, errs := runTool(prog, "--test="+hang, "--timeout=500ms")
	if code != 1 || !strings.Contains(errs, "(the test ran out of its --timeout=500ms)") {
		t.Errorf("a hanging test: exit %d: %s", code, errs)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("the reducer waited %v for a test of --timeout=500ms", d)
	}
	pid, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(pid)))
	// Running, that is: a killed child whose parent died first stays a
	// zombie until the system reaps it, which kill(pid, 0) still finds.
	running := func() bool {
		st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", n))
		if err != nil {
			return syscall.Kill(n, 0) == nil
		}
		fields := strings.Fields(string(st[bytes.LastIndexByte(st, ')')+1:]))
		return len(fields) > 0 && fields[0] != "Z" && fields[0] != "X"
	}
	alive := running()
	for i := 0; alive && i < 50; i++ { // the kill is sent; give the kernel a moment
		time.Sleep(20 * time.Millisecond)
		alive = running()
	}
	if alive {
		syscall.Kill(n, syscall.SIGKILL)
		t.Errorf("the test's child %d outlived it", n)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{prog, "--test=" + script("crash.sh", "kill -SEGV $$\n")}, 1, "(the test was killed by a signal)"},
		{[]string{prog, "--test=" + script("zero.sh", "exit 0\n")}, 1, "(the test exited with status 0; 1 means interesting)"},
		{[]string{prog, "--test=" + script("zero2.sh", "exit 0\n"), "--timeout=0"}, 2, "--timeout=0s: expected a positive duration"},
		{[]string{prog, "--test=" + script("zero3.sh", "exit 0\n"), "--timeout=-5s"}, 2, "--timeout=-5s: expected a positive duration"},
	} {
		code, _, errs := runTool(c.args...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("ipu-reduce %v: exit %d: %s (want %d, %q)", c.args[1:], code, errs, c.code, c.want)
		}
	}
}
