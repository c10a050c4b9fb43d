package plan

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/layout"
	"github.com/ipuir/ipuir/target"
)

// The exchange tables a stack's plans take grow with its layers, and what
// passes half the target's support reserve is reserved for every matmul
// in the class that holds code.
func TestTablesOfAStackAreReserved(t *testing.T) {
	tg := mustTarget(t, "test16")
	up := layout.MatmulShape{Batch: 1, M: 64, K: 128, N: 512, Elem: elem.F16, ResultElem: elem.F16}
	down := layout.MatmulShape{Batch: 1, M: 64, K: 512, N: 128, Elem: elem.F16, ResultElem: elem.F16}
	stack := func(layers int) Program {
		var p Program
		v := 0
		home := func(k, n int64) Operand {
			l, err := layout.DefaultLayout([]int64{k, n}, tg)
			if err != nil {
				t.Fatal(err)
			}
			v++
			return Operand{Value: 1000 + v, Source: &l, Home: true}
		}
		x := 0
		for range layers {
			p.Matmuls = append(p.Matmuls, Matmul{Name: "up", Shape: up, LHS: Operand{Value: x}, RHS: home(128, 512), Result: x + 1},
				Matmul{Name: "down", Shape: down, LHS: Operand{Value: x + 1}, RHS: home(512, 128), Result: x + 2})
			x += 2
		}
		return p
	}
	var code target.MemoryKind
	for _, c := range tg.MemoryClasses {
		if c.HoldsCode {
			code = c.Kind
		}
	}
	bytes := map[int]int64{}
	for _, layers := range []int{1, 4, 24} {
		prog := stack(layers)
		choices, err := planRound(prog, tg, Options{Finalists: DefaultFinalists, Logger: slog.New(discard{})}, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		bytes[layers] = tableBytes(prog, choices, tg)
		reserve := withTables(nil, prog, choices, tg, 0)
		extra := bytes[layers] - tg.SupportReserveBytes/2
		for i := range prog.Matmuls {
			got := int64(0)
			if reserve != nil {
				got = reserve[i][code]
			}
			if want := max(extra, 0); got != want {
				t.Fatalf("%d layers, matmul %d: %d bytes reserved for tables, want %d", layers, i, got, want)
			}
		}
	}
	if bytes[24] <= tg.SupportReserveBytes/2 {
		t.Errorf("24 layers take %d bytes of tables, within the target's reserve: the test reserves nothing", bytes[24])
	}
	if bytes[1] <= 0 || bytes[4] < 3*bytes[1] {
		t.Errorf("tables: %d bytes for one layer, %d for four; want them to grow with the layers", bytes[1], bytes[4])
	}
	t.Logf("busiest tile's tables: %d bytes for one layer, %d for four, %d for 24", bytes[1], bytes[4], bytes[24])
}

// A matmul refused for memory names what holds it: with a placement's
// measured support memory (SupportBytes) taking most of each tile and no
// weight resident, the message speaks of exchange tables and code, not of
// weights (mobilenet_v2's "3.3 MiB per tile that resident and home weights
// hold" were 433,689 table entries).
func TestRefusalNamesWhatHoldsTheMemory(t *testing.T) {
	tg := mustTarget(t, "test16")
	standard, err := tg.Class(target.Standard)
	if err != nil {
		t.Fatal(err)
	}
	shape := layout.MatmulShape{Batch: 1, M: 64, K: 128, N: 128, Elem: elem.F16, ResultElem: elem.F16}
	support := tg.SupportReserveBytes + standard.Size() - 1024 // 1 KiB of data left a tile
	opts := Options{Finalists: DefaultFinalists, Logger: slog.New(discard{}), SupportBytes: support}

	alone := Program{Matmuls: []Matmul{{Name: "mm", Shape: shape, LHS: Operand{Value: 0}, RHS: Operand{Value: 1}, Result: 2}}}
	_, err = PlanProgram(alone, tg, opts)
	if err == nil || !strings.Contains(err.Error(), "that exchange tables and code take beyond the support reserve") ||
		strings.Contains(err.Error(), "weights hold") {
		t.Errorf("tables alone: %v", err)
	}
}
