package passes

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// WriteList writes what `ipu-opt --list-passes` prints: every pass with
// its summary, anchor, options (with the type of value and the help) and
// statistics, then the named pipelines, in the layout of mlir-opt's
// --help pass list.
func (r *Registry) WriteList(w io.Writer) error {
	var b strings.Builder
	const col = 40
	row := func(indent, left, right string) {
		text := indent + left
		pad := col - len(text)
		if pad < 1 {
			pad = 1
		}
		fmt.Fprintf(&b, "%s%s- %s\n", text, strings.Repeat(" ", pad), right)
	}
	writePass := func(p *PassInfo) {
		summary := p.Summary
		if p.Anchor != "" {
			summary += " (on '" + p.Anchor + "')"
		}
		row("  ", "--"+p.Name, summary)
		for _, o := range sortedOptions(p.Options) {
			left := "--" + o.Name
			if o.TypeName != "" {
				left += "=<" + o.TypeName + ">"
			}
			help := o.Help
			if o.Default != "" {
				help += " (default: " + o.Default + ")"
			}
			row("    ", left, help)
			for _, c := range o.Choices {
				row("      ", "="+c.Value, c.Help)
			}
		}
		for _, s := range p.Statistics {
			row("    ", "(S) "+s.Name, s.Help)
		}
	}
	groups := []string{""}
	for _, p := range r.Passes() {
		if !slices.Contains(groups, p.Group) {
			groups = append(groups, p.Group)
		}
	}
	slices.Sort(groups[1:])
	for _, g := range groups {
		if g == "" {
			b.WriteString("Passes:\n")
		} else {
			b.WriteString(g + ":\n")
		}
		for _, p := range r.Passes() {
			if p.Group == g {
				writePass(p)
			}
		}
	}
	if ps := r.Pipelines(); len(ps) > 0 {
		b.WriteString("Pass Pipelines:\n")
		for _, p := range ps {
			row("  ", "--"+p.Name, p.Summary+": "+p.Text)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
