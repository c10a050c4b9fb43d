package irgen

import (
	"fmt"
	"strings"
)

var fileNames = []string{"a.mlir", "dir/b.py", "weird \\\"name\\\".cc", "é.c"}

// trailingLoc is " loc(...)" after an op or block argument, or "" (the
// position in this file then). It may name a location alias that the end
// of the file defines.
func (g *gen) trailingLoc() string {
	return g.choose(
		alt{LocImplicit, 3, func() string { return "" }},
		alt{"", 4, func() string { return " loc(" + g.locBody(2, true) + ")" }},
		alt{LocAliasForward, 1, func() string {
			name := fmt.Sprintf("#fwd%d", g.next())
			g.locEnd = append(g.locEnd, name)
			fmt.Fprintf(&g.footer, "%s = loc(%s)\n", name, g.locBody(2, true))
			return " loc(" + name + ")"
		}},
	)
}

// locBody is a location inside loc(...). d bounds nesting; top allows
// fused<metadata>, which mlir-opt 19 does not round-trip when nested.
// The metadata is a scalar: an attribute that mlir-opt would give an
// alias (an affine map, say) is printed after the op that uses it when
// it first appears in a location, and cannot be read back.
func (g *gen) locBody(d int, top bool) string {
	leaf := func() string {
		return g.choose(
			alt{LocFile, 3, g.fileLoc},
			alt{LocName, 2, func() string { return g.stringLiteral() }},
			alt{LocUnknown, 1, func() string { return "unknown" }},
		)
	}
	if d <= 0 {
		return leaf()
	}
	return g.choose(
		alt{"", 4, leaf},
		alt{LocNameChild, 1, func() string { return g.stringLiteral() + "(" + g.locBody(d-1, false) + ")" }},
		alt{LocCallSite, 1, func() string {
			return "callsite(" + g.locBody(d-1, false) + " at " + g.locBody(d-1, false) + ")"
		}},
		alt{LocFused, 1, func() string {
			// fused[] is unknown; nested ones flatten.
			return "fused[" + list(g.between(0, 3), func(int) string { return g.locBody(d-1, false) }) + "]"
		}},
		alt{LocFusedMeta, 1, func() string {
			if !top {
				return leaf()
			}
			meta := g.scalarAttr()
			if g.maybe(LocFusedMetadataUnknown, 0.04) {
				return "fused<" + meta + ">[" + pick(g, []string{"", "unknown", "unknown, fused[]", "fused[unknown]"}) + "]"
			}
			// A file location first: the list never normalises to empty.
			locs := []string{g.fileLoc()}
			for range g.between(0, 2) {
				locs = append(locs, g.locBody(d-1, false))
			}
			return "fused<" + meta + ">[" + strings.Join(locs, ", ") + "]"
		}},
		alt{LocAlias, 1, func() string {
			var fits []string
			for _, a := range g.locTop {
				if top || !a.fusedWithMetadata {
					fits = append(fits, a.name)
				}
			}
			if len(fits) == 0 {
				return leaf()
			}
			return pick(g, fits)
		}},
	)
}

func (g *gen) fileLoc() string {
	name := pick(g, fileNames)
	if g.maybe(LocFileEmptyName, 0.003) {
		name = ""
	}
	return fmt.Sprintf("\"%s\":%d:%d", name, g.between(0, 300), g.between(0, 120))
}

// locAlias is a location alias defined at the top of the file.
type locAlias struct {
	name string
	// fusedWithMetadata: the alias may not go inside another location,
	// where mlir-opt 19 does not round-trip a fused<m>[...].
	fusedWithMetadata bool
}
