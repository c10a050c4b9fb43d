package ir

// Location says where an op or value came from. Locations are attributes
// (MLIR's LocationAttr), uniqued like any other.
type Location interface {
	Attribute
	isLocation()
}

// UnknownLoc is `loc(unknown)`.
type UnknownLoc struct{}

// FileLineColLoc is `loc("file":line:col)`; columns are 1-based bytes.
type FileLineColLoc struct {
	File      string
	Line, Col int
}

// NameLoc is `loc("name")` or `loc("name"(child))`.
type NameLoc struct {
	Name  string
	Child Location // nil when absent
}

// CallSiteLoc is `loc(callsite(callee at caller))`.
type CallSiteLoc struct{ Callee, Caller Location }

// FusedLoc is `loc(fused<metadata>[a, b])`.
type FusedLoc struct {
	Locs     []Location
	Metadata Attribute // nil when absent
}

func (*UnknownLoc) isLocation()     {}
func (*FileLineColLoc) isLocation() {}
func (*NameLoc) isLocation()        {}
func (*CallSiteLoc) isLocation()    {}
func (*FusedLoc) isLocation()       {}

// Print writes the location in `loc(...)` form.
func (l *UnknownLoc) Print(p *AsmPrinter) { p.WriteString("loc("); l.printBody(p); p.WriteByte(')') }
func (l *FileLineColLoc) Print(p *AsmPrinter) {
	p.WriteString("loc(")
	l.printBody(p)
	p.WriteByte(')')
}
func (l *NameLoc) Print(p *AsmPrinter)     { p.WriteString("loc("); l.printBody(p); p.WriteByte(')') }
func (l *CallSiteLoc) Print(p *AsmPrinter) { p.WriteString("loc("); l.printBody(p); p.WriteByte(')') }
func (l *FusedLoc) Print(p *AsmPrinter)    { p.WriteString("loc("); l.printBody(p); p.WriteByte(')') }

// PrintLocBody prints a location without the `loc(...)` wrapper, or its
// alias when it has one.
func PrintLocBody(p *AsmPrinter, l Location) {
	if name, ok := p.AttrAliases[l]; ok {
		p.WriteByte('#')
		p.WriteString(name)
		return
	}
	l.(interface{ printBody(*AsmPrinter) }).printBody(p)
}

func (*UnknownLoc) printBody(p *AsmPrinter) { p.WriteString("unknown") }

func (l *FileLineColLoc) printBody(p *AsmPrinter) {
	p.PrintString(l.File)
	p.WriteByte(':')
	p.WriteInt(int64(l.Line))
	p.WriteByte(':')
	p.WriteInt(int64(l.Col))
}

func (l *NameLoc) printBody(p *AsmPrinter) {
	p.PrintString(l.Name)
	if l.Child != nil {
		p.WriteByte('(')
		PrintLocBody(p, l.Child)
		p.WriteByte(')')
	}
}

func (l *CallSiteLoc) printBody(p *AsmPrinter) {
	p.WriteString("callsite(")
	PrintLocBody(p, l.Callee)
	p.WriteString(" at ")
	PrintLocBody(p, l.Caller)
	p.WriteByte(')')
}

func (l *FusedLoc) printBody(p *AsmPrinter) {
	p.WriteString("fused")
	if l.Metadata != nil {
		p.WriteByte('<')
		p.PrintAttr(l.Metadata)
		p.WriteByte('>')
	}
	p.WriteByte('[')
	for i, s := range l.Locs {
		if i > 0 {
			p.WriteString(", ")
		}
		PrintLocBody(p, s)
	}
	p.WriteByte(']')
}

// UnknownLoc returns `loc(unknown)`.
func (c *Context) UnknownLoc() *UnknownLoc { return c.unknown }

// NameLoc returns a named location; `"n"(unknown)` becomes `"n"`.
func (c *Context) NameLoc(name string, child Location) *NameLoc {
	if _, unknown := child.(*UnknownLoc); unknown {
		child = nil
	}
	return c.uniqueNameLoc(name, child)
}

// CallSiteLoc returns a call-site location.
func (c *Context) CallSiteLoc(callee, caller Location) *CallSiteLoc {
	return UniqueAttr(c, &CallSiteLoc{Callee: callee, Caller: caller})
}

// FusedLoc returns the normalised fusion of locs, as MLIR builds it:
// unknowns are dropped, nested fused locations with the same metadata are
// flattened (their contents, unknowns included, kept as they are),
// duplicates removed, an empty list is unknown and a single location
// without metadata stands for itself. An empty list with metadata keeps
// the metadata on one unknown, fused<m>[unknown], as MLIR does.
func (c *Context) FusedLoc(locs []Location, metadata Attribute) Location {
	var flat []Location
	seen := map[Location]bool{}
	add := func(l Location) {
		if !seen[l] {
			seen[l] = true
			flat = append(flat, l)
		}
	}
	for _, l := range locs {
		switch l := l.(type) {
		case *UnknownLoc:
		case *FusedLoc:
			if l.Metadata == metadata {
				for _, s := range l.Locs {
					add(s)
				}
			} else {
				add(l)
			}
		default:
			add(l)
		}
	}
	if len(flat) == 0 {
		if metadata == nil {
			return c.unknown
		}
		flat = []Location{c.unknown}
	} else if len(flat) == 1 && metadata == nil {
		return flat[0]
	}
	return UniqueAttr(c, &FusedLoc{Locs: flat, Metadata: metadata})
}

// FileLineColOf returns the first file location inside l, following name,
// call-site (the callee) and fused (the first element) locations.
func FileLineColOf(l Location) (*FileLineColLoc, bool) {
	switch l := l.(type) {
	case *FileLineColLoc:
		return l, true
	case *NameLoc:
		if l.Child != nil {
			return FileLineColOf(l.Child)
		}
	case *CallSiteLoc:
		return FileLineColOf(l.Callee)
	case *FusedLoc:
		for _, s := range l.Locs {
			if f, ok := FileLineColOf(s); ok {
				return f, true
			}
		}
	}
	return nil, false
}
