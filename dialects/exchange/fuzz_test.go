package exchange

import (
	"strings"
	"testing"

	"github.com/ipuir/ipuir/ir"
)

// FuzzAttrs feeds arbitrary bodies to the dialect's attribute parsers:
// errors are fine, panics are not, and what parses prints to a form that
// parses to the same attribute.
func FuzzAttrs(f *testing.F) {
	for _, seed := range []string{
		".transfers<[{src = 1, dst = [0], words = 2, box = [[1, 2], [0, 2]]}, {operand = 1, src = 2, dst = [0, 3], words = 2, box = [[2, 3], [0, 2]]}]>",
		".transfers<rank = 2, packed = [0, 0, 2, 1, 2, 8, 0, 4, 0, 4]>",
		".transfers<rank = 1, packed = [0, 0, 1000000000, 1]>",
		".transfers<[]>",
		".schedule<horizon = 6, lower_bound = 6, kind = matching, segments = [[0, 0, 2], [3, 0, 2]]>",
		".schedule<horizon = -1, lower_bound = 0, kind = empty, segments = []>",
		".transfers<[{src = 1, dst = [" + strings.Repeat("1, ", 1000) + "1], words = 2, box = []}]>",
		".transfers<[[[[[[[[",
		".schedule<horizon = 99999999999999999999>",
	} {
		f.Add(seed)
	}
	ctx := ir.NewContext()
	f.Fuzz(func(t *testing.T, body string) {
		a, err := Dialect.ParseAttrBody(ctx, body, nil)
		if err != nil {
			return
		}
		text := ir.AttrString(a)
		again, err := Dialect.ParseAttrBody(ctx, strings.TrimPrefix(text, "#exchange"), nil)
		if err != nil || again != a {
			t.Fatalf("%q printed as %q, which parses to %v (%v)", body, text, again, err)
		}
	})
}
