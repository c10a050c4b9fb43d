package tests

import (
	"bufio"
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

// The layers of docs/architecture.md, lowest first. A package may import
// packages of its own layer or below, never above; packages outside the
// table (the test tools filecheck and lit, tests/, the IR generator of the
// differential tests, the examples) may not be imported by the layers.
var layers = []struct {
	name     string
	packages []string // import paths below the module, "x/..." for a tree
}{
	{"core", []string{"ir"}},
	{"element types and numerics", []string{"elem", "numeric", "internal/rowmajor", "internal/enum", "internal/nearest"}},
	{"the IR's element-type mapping", []string{"elem/irelem"}},
	{"text format", []string{"parser", "printer", "asmformat"}},
	{"targets", []string{"target/..."}},
	{"machine arithmetic", []string{"eval", "layout/...", "kernel", "schedule", "bsp"}},
	{"runtime", []string{"runtime/..."}},
	{"dialects", []string{"dialects/..."}},
	{"execution", []string{"execution/..."}},
	{"pass infrastructure", []string{"passes"}},
	{"generic transforms and passes of one dialect", []string{"transforms", "dialects/*/transforms"}},
	{"conversions", []string{"conversion/..."}},
	{"translations", []string{"translate/..."}},
	{"registration", []string{"registry"}},
	{"tools", []string{"tools/..."}},
}

// Rules the layer order alone does not say; deps rules hold for every
// package a package depends on, not only those it imports.
var forbidden = []struct {
	from, to string
	why      string
	deps     bool
}{
	{"passes", "runtime/...", "the pass infrastructure knows no runtime", true},
	{"passes", "target/...", "the pass infrastructure knows no target", true},
	{"passes", "dialects/...", "the pass infrastructure knows no dialect", true},
	{"passes", "elem/irelem", "the pass infrastructure knows no element types", false},
	{"runtime/...", "ir", "the runtime knows no IR: a device runs packages, not modules", true},
	{"runtime/...", "parser", "the runtime knows nothing of the text format", true},
	{"runtime/...", "printer", "the runtime knows nothing of the text format", true},
	{"runtime/...", "dialects/...", "the runtime knows no dialect", true},
	{"numeric", "ir", "numerics are shared with the runtime, which must not need the IR", true},
	{"eval", "ir", "the machine arithmetic is shared with the runtime, which must not need the IR", true},
	{"layout/...", "ir", "the machine arithmetic is shared with the runtime, which must not need the IR", true},
	{"kernel", "ir", "the machine arithmetic is shared with the runtime, which must not need the IR", true},
	{"schedule", "ir", "the machine arithmetic is shared with the runtime, which must not need the IR", true},
	{"bsp", "ir", "the machine arithmetic is shared with the runtime, which must not need the IR", true},
	{"target", "ir", "a target is data, shared with the runtime; its IR-facing parts are target/irtarget", true},
	{"target/storage", "ir", "a target is data, shared with the runtime; its IR-facing parts are target/irtarget", true},
	{"conversion/*", "conversion/*", "a lowering knows no other lowering: package registry composes the pipelines", false},
	{"tools/...", "dialects/*", "tools register dialects through package registry, the one place that lists them", false},
}

func match(pattern, pkg string) bool {
	if tree, ok := strings.CutSuffix(pattern, "/..."); ok {
		return pkg == tree || strings.HasPrefix(pkg, tree+"/")
	}
	if strings.Contains(pattern, "*") {
		p, q := strings.Split(pattern, "/"), strings.Split(pkg, "/")
		if len(p) != len(q) {
			return false
		}
		for i := range p {
			if p[i] != "*" && p[i] != q[i] {
				return false
			}
		}
		return true
	}
	return pattern == pkg
}

// layerOf returns the index of pkg's layer, the most specific pattern
// winning (dialects/tensor/transforms is a pass of one dialect, not a
// dialect); -1 for packages outside the table.
func layerOf(pkg string) int {
	best, bestLen := -1, -1
	for i, l := range layers {
		for _, p := range l.packages {
			if match(p, pkg) && len(p) > bestLen {
				best, bestLen = i, len(p)
			}
		}
	}
	return best
}

func TestImportsPointDown(t *testing.T) {
	root := moduleRoot(t)
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const module = "github.com/ipuir/ipuir"
	rel := func(p string) (string, bool) {
		if p == module {
			return "", true
		}
		return strings.CutPrefix(p, module+"/")
	}
	checked := 0
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		from, _ := rel(fields[0])
		fromLayer := layerOf(from)
		if fromLayer < 0 {
			continue
		}
		checked++
		for _, imp := range fields[1:] {
			to, ours := rel(imp)
			if !ours {
				continue
			}
			toLayer := layerOf(to)
			switch {
			case toLayer < 0 && !strings.HasPrefix(from, "tools/"):
				t.Errorf("%s (%s) imports %s, which is not part of the layers (test or tool support)", from, layers[fromLayer].name, to)
			case toLayer > fromLayer:
				t.Errorf("%s (%s) imports %s (%s): imports must point down", from, layers[fromLayer].name, to, layers[toLayer].name)
			}
			for _, f := range forbidden {
				if match(f.from, from) && match(f.to, to) {
					t.Errorf("%s imports %s: %s", from, to, f.why)
				}
			}
		}
	}
	if checked < 20 {
		t.Fatalf("only %d packages checked; is go list working?\n%s", checked, out)
	}
	// The rules that hold for every dependency.
	cmd = exec.Command("go", "list", "-f", "{{.ImportPath}}{{range .Deps}} {{.}}{{end}}", "./...")
	cmd.Dir = root
	deps, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	sc = bufio.NewScanner(bytes.NewReader(deps))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		from, _ := rel(fields[0])
		for _, dep := range fields[1:] {
			to, ours := rel(dep)
			if !ours {
				continue
			}
			for _, f := range forbidden {
				if f.deps && match(f.from, from) && match(f.to, to) {
					t.Errorf("%s depends on %s: %s", from, to, f.why)
				}
			}
		}
	}
	// The core imports nothing of the project at all.
	sc = bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if from, _ := rel(fields[0]); from != "ir" {
			continue
		}
		for _, imp := range fields[1:] {
			if to, ours := rel(imp); ours {
				t.Errorf("ir imports %s; the core imports nothing of the project", to)
			}
		}
	}
}
