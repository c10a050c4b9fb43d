package ere

import (
	"strings"
	"testing"
)

// A typical FileCheck search: a capture-heavy pattern over lines that
// share its literals until the last one matches.
func BenchmarkFindSubmatchInLines(b *testing.B) {
	line := "  %7 = arith.addi %c11, %arg1 : i32 loc(\"file.mlir\":120:4)\n"
	text := []byte(strings.Repeat(line, 100) + "  %8 = arith.muli %c12, %arg1 : i32\n")
	re, err := Compile(`%([0-9]+) = arith\.(addi|muli|xori) %c12, %arg1`, Newline)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(text)))
	for i := 0; i < b.N; i++ {
		if loc, _ := re.FindSubmatchIndex(text); loc == nil {
			b.Fatal("no match")
		}
	}
}

// A search with no literal to skip to: every position starts threads.
func BenchmarkFindNoLiteral(b *testing.B) {
	text := []byte(strings.Repeat("  %7 = arith.addi %c11, %arg1 : i32\n", 200) + "x9y\n")
	re, err := Compile(`[a-z][0-9]+[a-z]`, Newline)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(text)))
	for i := 0; i < b.N; i++ {
		if loc, _ := re.FindIndex(text); loc == nil {
			b.Fatal("no match")
		}
	}
}

func BenchmarkCompile(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if _, err := Compile(`%([0-9]+) = arith\.(addi|muli|xori) %c12, %arg1 : i32 loc\("file\.mlir":([0-9]+):`, Newline); err != nil {
			b.Fatal(err)
		}
	}
}
