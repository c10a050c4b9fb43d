package ir

import (
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"unsafe"
)

// Every way of building a value kept in a typed table yields the one
// pointer, and values that differ stay apart.
func TestTypedTablesUniqueEveryPath(t *testing.T) {
	c := NewContext()
	file := strings.Repeat("f", 3) + ".mlir" // a string of its own
	l := c.FileLineCol("fff.mlir", 3, 4)
	if c.FileLineCol(file, 3, 4) != l || UniqueAttr(c, &FileLineColLoc{File: file, Line: 3, Col: 4}) != l {
		t.Error("equal file locations are different pointers")
	}
	if c.FileLineCol("fff.mlir", 4, 3) == l || c.FileLineCol("g.mlir", 3, 4) == l {
		t.Error("different file locations are one pointer")
	}
	if l2 := c.FileLineCol(file, 9, 9); unsafe.StringData(l2.File) != unsafe.StringData(l.File) {
		t.Error("the locations of one file do not share its name")
	}

	n := c.NameLoc("n", l)
	if UniqueAttr(c, &NameLoc{Name: "n", Child: l}) != n || c.NameLoc("n", nil) == n {
		t.Error("name locations uniqued wrongly")
	}

	i8 := c.I(8)
	a := c.IntegerAttr(i8, -1)
	if c.IntegerAttr(i8, 255) != a || c.IntegerAttrBig(i8, big.NewInt(-257)) != a || UniqueAttr(c, &IntegerAttr{Typ: i8, Int: -1}) != a {
		t.Error("equal i8 attributes are different pointers")
	}
	if c.IntegerAttr(c.IntegerType(8, Unsigned), 255) == c.IntegerAttr(c.IntegerType(8, Signed), -1) {
		t.Error("ui8 and si8 attributes are one pointer")
	}
	wide := c.IntegerAttrBig(c.I(128), new(big.Int).Lsh(big.NewInt(1), 100))
	if c.IntegerAttrBig(c.I(128), new(big.Int).Lsh(big.NewInt(1), 100)) != wide {
		t.Error("equal i128 attributes are different pointers")
	}

	f := c.FloatAttr(c.F16(), 1.5)
	if UniqueAttr(c, &FloatAttr{Typ: c.F16(), Val: 1.5}) != f || c.FloatAttr(c.BF16(), 1.5) == f {
		t.Error("float attributes uniqued wrongly")
	}
	if c.FloatAttr(c.F32(), 0) == c.FloatAttr(c.F32(), math.Copysign(0, -1)) {
		t.Error("0.0 and -0.0 are one attribute")
	}

	shape := []int64{4, Dynamic}
	tt := c.Tensor(shape, c.F32())
	shape[0] = 5 // the uniqued type keeps its own shape
	if tt.Dims[0] != 4 || c.Tensor([]int64{4, Dynamic}, c.F32()) != tt || UniqueType(c, &RankedTensorType{Dims: []int64{4, Dynamic}, Elem: c.F32()}) != tt {
		t.Error("equal tensor types uniqued wrongly")
	}
	if c.TensorWithEncoding([]int64{4, Dynamic}, c.F32(), c.Unit()) == tt {
		t.Error("an encoding is ignored")
	}
	deep := []int64{1, 2, 3, 4, 5, 6, 7}
	if c.Tensor(deep, c.F32()) != c.Tensor(append([]int64(nil), deep...), c.F32()) {
		t.Error("equal rank-7 tensor types are different pointers")
	}
	if c.Tensor(nil, c.F32()) != c.Tensor([]int64{}, c.F32()) {
		t.Error("rank-0 tensor types are different pointers")
	}

	fn := c.Function([]Type{c.I(1)}, []Type{tt})
	if c.Function([]Type{c.I(1)}, []Type{tt}) != fn || c.Function([]Type{c.I(1), tt}, nil) == fn {
		t.Error("function types uniqued wrongly")
	}
	fused := c.FusedLoc([]Location{l, n}, c.String("m"))
	if c.FusedLoc([]Location{l, n}, c.String("m")) != fused || c.FusedLoc([]Location{n, l}, c.String("m")) == fused {
		t.Error("fused locations uniqued wrongly")
	}
	cs := c.CallSiteLoc(n, l)
	if c.CallSiteLoc(n, l) != cs || c.CallSiteLoc(l, n) == cs {
		t.Error("call-site locations uniqued wrongly")
	}
}

// normalizeInt64 agrees with NormalizeInt for every width and signedness.
func TestNormalizeInt64MatchesNormalizeInt(t *testing.T) {
	c := NewContext()
	r := rand.New(rand.NewPCG(3, 4))
	types := []Type{c.Index()}
	for w := 0; w <= 64; w++ {
		for s := Signless; s <= Unsigned; s++ {
			types = append(types, c.IntegerType(w, s))
		}
	}
	for _, ty := range types {
		for k := 0; k < 100; k++ {
			v := int64(r.Uint64())
			if k < 3 {
				v = []int64{0, -1, math.MinInt64}[k]
			}
			want, _ := NormalizeInt(ty, big.NewInt(v))
			if got := normalizeInt64(ty, v); got != want {
				t.Fatalf("%s %d: %d, want %d", TypeString(ty), v, got, want)
			}
		}
	}
}

// Goroutines building the same locations get the same pointers.
func TestTypedTablesConcurrent(t *testing.T) {
	c := NewContext()
	const n = 2000
	got := make([][]*FileLineColLoc, 4)
	var wg sync.WaitGroup
	for g := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < n; i++ {
				got[g] = append(got[g], c.FileLineCol([]string{"a", "b"}[i%2], i, g%2))
			}
		}()
	}
	wg.Wait()
	for i := 0; i < n; i++ {
		if got[0][i] != got[2][i] || got[1][i] != got[3][i] || got[0][i] == got[1][i] {
			t.Fatalf("location %d uniqued differently across goroutines", i)
		}
	}
}

// File locations are uniqued whether their key packs into a word or not
// (a column past 2^16, a line past 2^28), and never confuse the two.
func TestFileLineColUniquing(t *testing.T) {
	c := NewContext()
	for _, lc := range [][2]int{{1, 1}, {7, 65535}, {7, 65536}, {1 << 28, 3}, {(1 << 28) - 1, 3}, {0, 0}} {
		a, b := c.FileLineCol("f.mlir", lc[0], lc[1]), c.FileLineCol("f.mlir", lc[0], lc[1])
		if a != b || a.Line != lc[0] || a.Col != lc[1] || a.File != "f.mlir" {
			t.Errorf("%v: %v and %v", lc, a, b)
		}
		if other := c.FileLineCol("g.mlir", lc[0], lc[1]); other == a || other.File != "g.mlir" {
			t.Errorf("%v: another file's location is the same", lc)
		}
	}
	if c.FileLineCol("f.mlir", 7, 65535) == c.FileLineCol("f.mlir", 7, 65536) {
		t.Error("columns either side of the packing bound are one location")
	}
}
