// Command bench times the filecheck command against LLVM's FileCheck-19 on
// a generated 100 MB input (written to a temporary folder and removed
// afterwards) and prints a table with the ratio of the two.
//
//	go run ./filecheck/bench [-size MB] [-runs N] [-keep DIR]
//
// Each scenario is a check file typical of compiler tests run against the
// whole input: every function checked with labels, captured SSA names,
// numeric variables, CHECK-NEXT, CHECK-DAG and CHECK-NOT; a few checks far
// apart with a CHECK-NOT scanning everything between; and an
// --implicit-check-not applied to every gap. The times are the best of
// -runs runs of each command; the CPU-time ratio compares user plus system
// time, which a busy machine disturbs less than wall time.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

func main() {
	sizeMB := flag.Int("size", 100, "input size in MB")
	runs := flag.Int("runs", 3, "runs of each command; the best time counts")
	keep := flag.String("keep", "", "write the inputs to this folder and keep them")
	flag.Parse()
	if err := run(*sizeMB, *runs, *keep); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

type scenario struct {
	name  string
	check string
	args  []string
}

func run(sizeMB, runs int, keep string) error {
	oracle, err := exec.LookPath("FileCheck-19")
	if err != nil {
		return fmt.Errorf("FileCheck-19 is not on PATH")
	}
	dir := keep
	if dir == "" {
		if dir, err = os.MkdirTemp("", "filecheck-bench-"); err != nil {
			return err
		}
		defer os.RemoveAll(dir)
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	ours := filepath.Join(dir, "filecheck")
	build := exec.Command("go", "build", "-o", ours, "github.com/ipuir/ipuir/tools/filecheck")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("building filecheck: %v", err)
	}

	input := filepath.Join(dir, "input.mlir")
	funcs, err := writeInput(input, int64(sizeMB)<<20)
	if err != nil {
		return err
	}
	scenarios := []scenario{
		{name: "every function", check: denseChecks(funcs)},
		{name: "sparse + CHECK-NOT", check: sparseChecks(funcs)},
		{name: "implicit-check-not", check: sparseChecks(funcs), args: []string{"--implicit-check-not=arith.subi"}},
	}
	fmt.Printf("input: %d MB, %d functions; best of %d runs; %s/%s, %d CPUs\n\n",
		sizeMB, funcs, runs, runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
	fmt.Printf("%-22s %12s %14s %8s %14s\n", "scenario", "filecheck", "FileCheck-19", "ratio", "CPU-time ratio")
	for i, s := range scenarios {
		checkFile := filepath.Join(dir, fmt.Sprintf("check%d.txt", i))
		if err := os.WriteFile(checkFile, []byte(s.check), 0o644); err != nil {
			return err
		}
		args := append([]string{checkFile, "--input-file", input}, s.args...)
		ourTime, ourCPU, err := best(runs, ours, args)
		if err != nil {
			return fmt.Errorf("%s: filecheck: %v", s.name, err)
		}
		theirTime, theirCPU, err := best(runs, oracle, args)
		if err != nil {
			return fmt.Errorf("%s: FileCheck-19: %v", s.name, err)
		}
		fmt.Printf("%-22s %11.2fs %13.2fs %7.2fx %13.2fx\n", s.name, ourTime.Seconds(), theirTime.Seconds(),
			ourTime.Seconds()/theirTime.Seconds(), ourCPU.Seconds()/theirCPU.Seconds())
	}
	return nil
}

// best runs the command runs times, requiring success, and returns the
// shortest wall time and the shortest CPU time (user plus system), which
// is steadier than wall time on a busy machine.
func best(runs int, prog string, args []string) (wall, cpu time.Duration, err error) {
	for i := 0; i < runs; i++ {
		cmd := exec.Command(prog, args...)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		start := time.Now()
		err := cmd.Run()
		elapsed := time.Since(start)
		if err != nil {
			return 0, 0, fmt.Errorf("%v\n%s", err, firstLines(stderr.String(), 10))
		}
		used := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		if i == 0 || elapsed < wall {
			wall = elapsed
		}
		if i == 0 || used < cpu {
			cpu = used
		}
	}
	return wall, cpu, nil
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}

// writeInput writes MLIR-like functions until the file reaches size bytes
// and returns how many functions it wrote.
func writeInput(path string, size int64) (int, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var written int64
	n := 0
	for written < size {
		s := function(n)
		w.WriteString(s)
		written += int64(len(s))
		n++
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return 0, err
	}
	return n, f.Close()
}

// function renders function n: a constant, a chain of arithmetic, two
// independent loads (for CHECK-DAG) and a return, about 1 KB in all.
func function(n int) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "func.func @f%d(%%arg0: tensor<16x32xf32>, %%arg1: i32) -> i32 {\n", n)
	fmt.Fprintf(&sb, "  %%c%d = arith.constant %d : i32\n", n%97, n%1000)
	prev := fmt.Sprintf("%%c%d", n%97)
	for i := 0; i < 10; i++ {
		op := []string{"arith.addi", "arith.muli", "arith.xori"}[(n+i)%3]
		fmt.Fprintf(&sb, "  %%%d = %s %s, %%arg1 : i32 loc(\"file.mlir\":%d:%d)\n", i, op, prev, n%5000+i, i*3+1)
		prev = fmt.Sprintf("%%%d", i)
	}
	fmt.Fprintf(&sb, "  %%a = memref.load %%buf[%%%d] : memref<?xi32>\n", n%7)
	fmt.Fprintf(&sb, "  %%b = memref.load %%buf[%%%d] : memref<?xi32>\n", n%11)
	fmt.Fprintf(&sb, "  func.return %s : i32\n}\n\n", prev)
	return sb.String()
}

// denseChecks checks every function.
func denseChecks(funcs int) string {
	var sb strings.Builder
	for n := 0; n < funcs; n++ {
		fmt.Fprintf(&sb, "// CHECK-LABEL: func.func @f%d(\n", n)
		sb.WriteString("// CHECK: %[[C:c[0-9]+]] = arith.constant [[#V:]] : i32\n")
		sb.WriteString("// CHECK-NEXT: %[[X0:[0-9]+]] = arith.{{addi|muli|xori}} %[[C]], %arg1\n")
		sb.WriteString("// CHECK-NEXT: %{{[0-9]+}} = arith.{{[a-z]+}} %[[X0]], %arg1 : i32 loc(\"file.mlir\":[[#LINE:]]:{{[0-9]+}})\n")
		sb.WriteString("// CHECK-NOT: arith.subi\n")
		sb.WriteString("// CHECK: loc(\"file.mlir\":[[#LINE+7]]:\n")
		fmt.Fprintf(&sb, "// CHECK-DAG: %%b = memref.load %%buf[%%%d]\n", n%11)
		fmt.Fprintf(&sb, "// CHECK-DAG: %%a = memref.load %%buf[%%%d]\n", n%7)
		sb.WriteString("// CHECK: func.return %9 : i32\n")
	}
	return sb.String()
}

// sparseChecks checks one function in a thousand, with CHECK-NOTs that
// scan the skipped functions.
func sparseChecks(funcs int) string {
	var sb strings.Builder
	for n := 0; n < funcs; n += 1000 {
		fmt.Fprintf(&sb, "// CHECK: func.func @f%d(\n", n)
		sb.WriteString("// CHECK-NOT: {{arith.(subi|divsi)}}\n")
		sb.WriteString("// CHECK-NOT: error\n")
	}
	sb.WriteString("// CHECK: func.return\n")
	return sb.String()
}
