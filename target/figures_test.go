package target

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// fieldPaths lists the leaf fields of t's type as Figure.Fields names
// them: dotted from Target, a slice's elements as Field[].
func fieldPaths(t reflect.Type, prefix string) []string {
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name := prefix + f.Name
		switch ft := f.Type; {
		case ft.Kind() == reflect.Struct:
			out = append(out, fieldPaths(ft, name+".")...)
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct:
			out = append(out, fieldPaths(ft.Elem(), name+"[].")...)
		default:
			out = append(out, name)
		}
	}
	return out
}

// Every field of Target (its name and summary aside) is exactly one
// figure's, and every figure says where its value comes from: a source or
// an assumption, not both, not neither. A field added without a figure
// fails here, so no number the cost model reads is without a source.
func TestEveryFigureHasASource(t *testing.T) {
	owner := map[string]string{}
	for _, f := range Figures {
		if (f.Source == "") == (f.Assumption == "") {
			t.Errorf("figure %s: want a source or an assumption (exactly one)", f.Key)
		}
		if f.What == "" || len(f.Fields) == 0 {
			t.Errorf("figure %s says neither what it is nor which fields", f.Key)
		}
		for _, path := range f.Fields {
			if prev, dup := owner[path]; dup {
				t.Errorf("field %s is figure %s's and %s's", path, prev, f.Key)
			}
			owner[path] = f.Key
		}
		if f.Option != "" {
			if _, ok := OptionNamed(f.Option); !ok {
				t.Errorf("figure %s names option %s, which does not exist", f.Key, f.Option)
			}
		}
	}
	paths := fieldPaths(reflect.TypeOf(Target{}), "")
	checked := 0
	for _, p := range paths {
		if p == "Name" || p == "Summary" {
			continue
		}
		checked++
		if _, ok := owner[p]; !ok {
			t.Errorf("field %s of Target is no figure's: add it to Figures with its source", p)
		}
	}
	for p, key := range owner {
		if !slices.Contains(paths, p) {
			t.Errorf("figure %s names field %s, which Target does not have", key, p)
		}
	}
	// Every option sets a figure.
	for _, o := range Options {
		if !slices.ContainsFunc(Figures, func(f Figure) bool { return f.Option == o.Name }) {
			t.Errorf("option %s sets no figure", o.Name)
		}
	}
	t.Logf("%d fields of Target, %d figures, each with its source", checked, len(Figures))
}

// Each built-in target shows every figure it has, and --show-targets'
// listing carries each figure's source.
func TestDescribeShowsEveryFigureWithItsSource(t *testing.T) {
	for _, name := range Names() {
		tg, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		d := tg.Describe()
		shown := 0
		for i := range Figures {
			f := &Figures[i]
			v := f.Value(tg)
			if v == "" {
				if f.Key != "links-per-neighbour" && f.Key != "link-rate" && f.Key != "link-latency" && f.Key != "chip-sync" {
					t.Errorf("%s: figure %s has no value", name, f.Key)
				}
				continue
			}
			if !containsAll(d, f.Key+" = "+v, f.Origin()) {
				t.Errorf("%s: --show-targets does not show figure %s = %s with its source", name, f.Key, v)
			}
			shown++
		}
		if shown < len(Figures)-4 {
			t.Errorf("%s: %d figures shown of %d", name, shown, len(Figures))
		}
	}
}

func containsAll(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}
