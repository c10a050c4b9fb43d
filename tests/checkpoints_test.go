package tests

import (
	"os"
	"strings"
	"testing"

	"github.com/ipuir/ipuir/target"
)

// A package that leaves a value of its source out cannot pass: dropping
// any one checkpoint of a compiled program makes the check fail, naming
// the op; the untouched package passes, comparing every element. Checked
// on a reassociated program (the check replays the rewrite) and on one
// with an f32→bf16 conversion the host performs (which needs none).
func TestMissingCheckpointFails(t *testing.T) {
	tg, err := target.Lookup("test16")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ file, fn string }{{"device/reassociated.ipuir", "attention"}, {"device/widen-bf16.ipuir", "f"}} {
		file := c.file
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		pkg, refused, err := compileProgram(string(src), tg)
		if err != nil || refused != "" {
			t.Fatalf("%s: %v%s", file, err, refused)
		}
		fn, inputs, err := generatedInputs(string(src), c.fn, 1)
		if err != nil {
			t.Fatal(err)
		}
		rep, _, err := runAndCheckOn(pkg, fn, tg, inputs)
		if err != nil || !rep.Pass() || rep.Compared == 0 {
			t.Fatalf("%s as compiled: %v, %+v", file, err, rep)
		}
		t.Logf("%s: PASS, %d elements compared over %d checkpoints", file, rep.Compared, len(pkg.Checkpoints))
		all := pkg.Checkpoints
		for k := range all {
			pkg.Checkpoints = append(all[:k:k], all[k+1:]...)
			rep, _, err := runAndCheckOn(pkg, fn, tg, inputs)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Pass() || !strings.Contains(strings.Join(rep.Problems, "\n"), "has no checkpoint for") {
				t.Errorf("%s without checkpoint %d (%s): passes, or says nothing of it: %v", file, k, all[k].Name, rep.Problems)
			}
		}
		pkg.Checkpoints = all
	}
}
