package passes_test

import "testing"

func TestSmoke(t *testing.T) {
	f := newFixture()
	a := f.fn("f", "", 1)
	s := f.add(f.c(1), f.c(2))
	x := f.add(a[0], s)
	y := f.add(s, a[0])
	f.ret(f.mul(x, y))
	t.Log(show(t, f.module))
	t.Log(f.mustRun(t, "builtin.module(canonicalize,cse)"))
}
