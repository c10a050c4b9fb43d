package printer

import "github.com/ipuir/ipuir/ir"

// printLocation prints `loc(...)`, or the readable form with
// PrettyDebugInfo; allowAlias lets the location itself print as #locN
// (nested locations always may).
func (p *opPrinter) printLocation(l ir.Location, allowAlias bool) {
	if p.opts.PrettyDebugInfo {
		p.printLocBody(l, true, true)
		return
	}
	p.asm.WriteString("loc(")
	if name, ok := p.asm.AttrAliases[l]; ok && allowAlias {
		p.asm.WriteByte('#')
		p.asm.WriteString(name)
	} else {
		p.printLocBody(l, false, true)
	}
	p.asm.WriteByte(')')
}

// printTrailingLocation prints ` loc(...)` after an op or argument when
// locations are printed.
func (p *opPrinter) printTrailingLocation(l ir.Location, allowAlias bool) {
	if !p.opts.debugInfo() {
		return
	}
	p.asm.WriteByte(' ')
	p.printLocation(p.orUnknown(l), allowAlias)
}

func (p *opPrinter) orUnknown(l ir.Location) ir.Location {
	if l == nil && p.ctx != nil {
		return p.ctx.UnknownLoc()
	}
	return l
}

// printLocBody prints a location without `loc(...)`; nested locations and
// (unless top) l itself print as aliases when they have one.
func (p *opPrinter) printLocBody(l ir.Location, pretty, top bool) {
	if name, ok := p.asm.AttrAliases[l]; ok && !top {
		p.asm.WriteByte('#')
		p.asm.WriteString(name)
		return
	}
	switch l := l.(type) {
	case nil, *ir.UnknownLoc:
		if pretty {
			p.asm.WriteString("[unknown]")
		} else {
			p.asm.WriteString("unknown")
		}
	case *ir.FileLineColLoc:
		if pretty {
			p.asm.WriteString(l.File)
		} else {
			p.asm.PrintString(l.File)
		}
		p.asm.WriteByte(':')
		p.asm.WriteInt(int64(l.Line))
		p.asm.WriteByte(':')
		p.asm.WriteInt(int64(l.Col))
	case *ir.NameLoc:
		p.asm.PrintString(l.Name)
		if l.Child != nil {
			p.asm.WriteByte('(')
			p.printLocBody(l.Child, pretty, false)
			p.asm.WriteByte(')')
		}
	case *ir.CallSiteLoc:
		if !pretty {
			p.asm.WriteString("callsite(")
		}
		p.printLocBody(l.Callee, pretty, false)
		if pretty {
			_, nameCallee := l.Callee.(*ir.NameLoc)
			_, fileCaller := l.Caller.(*ir.FileLineColLoc)
			if !nameCallee || !fileCaller {
				p.asm.WriteByte('\n')
			}
		}
		p.asm.WriteString(" at ")
		p.printLocBody(l.Caller, pretty, false)
		if !pretty {
			p.asm.WriteByte(')')
		}
	case *ir.FusedLoc:
		if !pretty {
			p.asm.WriteString("fused")
		}
		if l.Metadata != nil {
			p.asm.WriteByte('<')
			p.asm.PrintAttr(l.Metadata)
			p.asm.WriteByte('>')
		}
		p.asm.WriteByte('[')
		for i, s := range l.Locs {
			if i > 0 {
				p.asm.WriteString(", ")
			}
			p.printLocBody(s, pretty, false)
		}
		p.asm.WriteByte(']')
	default:
		// A location kind the printer does not know prints itself.
		l.Print(p.asm)
	}
}

// collectLocation visits l and the locations inside it for aliases;
// deferrable marks op locations, whose aliases may be defined at the end.
func (p *opPrinter) collectLocation(l ir.Location, deferrable bool) {
	c := p.collect
	saved := c.deferrable
	c.deferrable = deferrable
	p.visitLocation(p.orUnknown(l))
	c.deferrable = saved
}

func (p *opPrinter) visitLocation(l ir.Location) {
	p.collect.visit(l, false, func() {
		switch l := l.(type) {
		case *ir.NameLoc:
			if l.Child != nil {
				p.visitLocation(l.Child)
			}
		case *ir.CallSiteLoc:
			p.visitLocation(l.Callee)
			p.visitLocation(l.Caller)
		case *ir.FusedLoc:
			if l.Metadata != nil {
				p.asm.PrintAttr(l.Metadata)
			}
			for _, s := range l.Locs {
				p.visitLocation(s)
			}
		}
	})
}
