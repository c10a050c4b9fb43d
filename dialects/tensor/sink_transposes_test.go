package tensor

import (
	"slices"
	"testing"

	"github.com/ipuir/ipuir/ir"
)

// A location marked twice names the composed permutation, and a
// permutation composed back to the identity leaves the plain location;
// named and fused locations are followed to their first file location, as
// ir.FileLineColOf follows them.
func TestPermutedLocComposes(t *testing.T) {
	ctx := ir.NewContext()
	src := ctx.FileLineCol("m.onnx", 3, 7)
	if _, ok := SourcePermutation(src); ok {
		t.Fatal("a plain location names a permutation")
	}
	once := PermutedLoc(ctx, src, []int{0, 3, 1, 2})
	if p, ok := SourcePermutation(once); !ok || !slices.Equal(p, []int{0, 3, 1, 2}) {
		t.Fatalf("marked once: %v %v", p, ok)
	}
	if f, ok := ir.FileLineColOf(once); !ok || f != src {
		t.Fatalf("the marked location's file location is %v", f)
	}
	// The source is transpose(transpose(v, p), q): v's axes by r[i] = p[q[i]].
	twice := PermutedLoc(ctx, once, []int{1, 0, 2, 3})
	if p, ok := SourcePermutation(twice); !ok || !slices.Equal(p, []int{1, 3, 0, 2}) {
		t.Fatalf("marked twice: %v %v, want [1 3 0 2]", p, ok)
	}
	back := PermutedLoc(ctx, once, []int{0, 2, 3, 1})
	if p, ok := SourcePermutation(back); ok {
		t.Fatalf("marked back to the identity still names %v", p)
	}
	if f, ok := ir.FileLineColOf(back); !ok || f != src {
		t.Fatalf("marked back: %v", back)
	}
	named := ctx.NameLoc("/conv1/Conv", once)
	if p, ok := SourcePermutation(named); !ok || !slices.Equal(p, []int{0, 3, 1, 2}) {
		t.Fatalf("under a name: %v %v", p, ok)
	}
	fused := ctx.FusedLoc([]ir.Location{named, ctx.FileLineCol("m.onnx", 9, 1)}, nil)
	if p, ok := SourcePermutation(fused); !ok || !slices.Equal(p, []int{0, 3, 1, 2}) {
		t.Fatalf("first of a fusion: %v %v", p, ok)
	}
}
