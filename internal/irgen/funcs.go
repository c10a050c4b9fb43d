package irgen

import (
	"fmt"
	"strings"
)

// funcOp is a func.func in the generic or the custom form: a definition
// whose body has SSACFG dominance, or a private declaration.
func (g *gen) funcOp(ind string, depth int) string {
	n := g.next()
	name := fmt.Sprintf("f%d", n)
	symbol := "@" + name
	if g.maybe(AttrSymbolQuoted, 0.1) {
		name = fmt.Sprintf("f %d", n)
		symbol = `@"` + name + `"`
	}
	ins := make([]*typ, g.between(0, 3))
	for i := range ins {
		ins[i] = g.anyType(2)
	}
	outs := make([]*typ, g.between(0, 2))
	for i := range outs {
		outs[i] = g.anyType(2)
	}
	decl := g.maybe(FuncDeclaration, 0.15)
	vis := ""
	if decl {
		vis = "private"
	} else if g.maybe(FuncVisibility, 0.2) {
		vis = pick(g, []string{"private", "nested"})
	}
	argAttrs := g.funcArgAttrs(FuncArgAttrs, len(ins))
	resAttrs := g.funcArgAttrs(FuncResultAttrs, len(outs))
	extra := ""
	if g.maybe(FuncExtraAttrs, 0.2) {
		extra = g.dictEntries(1, g.between(1, 2), false)
	}

	mark := g.openScope()
	defer g.closeScope(mark)
	var entry []value
	for _, t := range ins {
		entry = append(entry, value{name: g.valueName(), size: 1, t: t, pos: -1})
	}
	body := func(custom bool) string {
		blocks := 1
		if g.on(MultiBlockRegion) && g.on(Successors) && g.maybe(FuncMultiBlock, 0.3) {
			blocks = g.between(2, 4)
		}
		return g.cfgRegion(regionSpec{
			ind: ind + "  ", depth: depth + 1, entry: entry, fixedEntry: true, noEntryLabel: custom,
			blocks: blocks, exit: g.funcExit(outs, custom),
		})
	}

	return g.choose(
		alt{FuncGeneric, 1, func() string {
			inherent := []string{
				"function_type = " + functionText(ins, outs, len(outs) == 1 && g.maybe(ParenthesisedResult, 0.2)),
				`sym_name = "` + name + `"`,
			}
			if vis != "" {
				inherent = append(inherent, `sym_visibility = "`+vis+`"`)
			}
			if argAttrs != nil {
				inherent = append(inherent, "arg_attrs = ["+strings.Join(argAttrs, ", ")+"]")
			}
			if resAttrs != nil {
				inherent = append(inherent, "res_attrs = ["+strings.Join(resAttrs, ", ")+"]")
			}
			var props, dict []string
			moveSome := g.maybe(FuncInherentInDict, 0.2)
			for _, e := range shuffled(g, inherent) {
				if moveSome && g.chance(0.5) {
					dict = append(dict, e)
				} else {
					props = append(props, e)
				}
			}
			if extra != "" {
				dict = append(dict, extra)
			}
			var b strings.Builder
			b.WriteString(ind + `"func.func"()`)
			if len(props) > 0 {
				b.WriteString(" <{" + strings.Join(props, ", ") + "}>")
			}
			if decl {
				b.WriteString(" ({\n" + ind + "})")
			} else {
				b.WriteString(" (" + body(false) + ")")
			}
			if len(dict) > 0 {
				b.WriteString(" {" + strings.Join(shuffled(g, dict), ", ") + "}")
			}
			b.WriteString(" : () -> ()" + g.trailingLoc() + "\n")
			return b.String()
		}},
		alt{FuncCustom, 1, func() string {
			var b strings.Builder
			b.WriteString(ind + "func.func ")
			if vis != "" {
				b.WriteString(vis + " ")
			}
			b.WriteString(symbol + "(")
			for i, t := range ins {
				if i > 0 {
					b.WriteString(", ")
				}
				if !decl {
					b.WriteString(entry[i].name + ": ")
				}
				b.WriteString(t.spell)
				if argAttrs != nil && argAttrs[i] != "{}" {
					b.WriteString(" " + argAttrs[i])
				}
				if !decl {
					b.WriteString(g.argLoc())
				}
			}
			b.WriteString(")")
			if len(outs) == 1 && resAttrs == nil && outs[0].kind != kFunction && !g.maybe(ParenthesisedResult, 0.2) {
				b.WriteString(" -> " + outs[0].spell)
			} else if len(outs) > 0 {
				b.WriteString(" -> (" + list(len(outs), func(i int) string {
					if resAttrs != nil && resAttrs[i] != "{}" {
						return outs[i].spell + " " + resAttrs[i]
					}
					return outs[i].spell
				}) + ")")
			}
			if extra != "" {
				b.WriteString(" attributes {" + extra + "}")
			}
			if !decl {
				b.WriteString(" " + body(true))
			}
			b.WriteString(g.trailingLoc() + "\n")
			return b.String()
		}},
	)
}

// funcArgAttrs are the per-argument (or per-result) dictionaries, some
// empty, or nil. Their keys need a dialect prefix.
func (g *gen) funcArgAttrs(f Feature, n int) []string {
	if n == 0 || !g.maybe(f, 0.25) {
		return nil
	}
	ds := make([]string, n)
	for i := range ds {
		ds[i] = "{}"
		if g.chance(0.7) {
			ds[i] = "{" + g.dictEntries(1, g.between(1, 2), true) + "}"
		}
	}
	return ds
}

// funcExit ends a function block: func.return of values of the result
// types, in either form, or an unregistered op.
//
// The short `return` resolves only inside a custom-form func.func, whose
// parser makes func the default dialect.
func (g *gen) funcExit(outs []*typ, custom bool) func(string, []value, []frame, int) string {
	return func(ind string, visible []value, stack []frame, depth int) string {
		return g.choose(
			alt{FuncReturnCustom, 3, func() string {
				prelude, refs := g.valuesOfTypes(ind, visible, stack, outs)
				s := ind + "func.return"
				if custom && g.chance(0.7) {
					s = ind + "return"
				}
				if len(outs) > 0 {
					s += " " + strings.Join(refs, ", ") + " : " + spells(outs)
				}
				return prelude + s + g.trailingLoc() + "\n"
			}},
			alt{FuncReturnGeneric, 2, func() string {
				prelude, refs := g.valuesOfTypes(ind, visible, stack, outs)
				return prelude + fmt.Sprintf("%s\"func.return\"(%s) : (%s) -> ()%s\n", ind, strings.Join(refs, ", "), spells(outs), g.trailingLoc())
			}},
			alt{UnregisteredTerminal, 1, func() string { return g.op(ind, nil, visible, visible, stack, depth) }},
		)
	}
}

// moduleOp is a builtin.module, generic or custom, named or not, with
// attributes or not; its body is a graph region isolated from above.
func (g *gen) moduleOp(ind string, depth int) string {
	name := ""
	if g.maybe(ModuleName, 0.5) {
		name = fmt.Sprintf("m%d", g.next())
	}
	attrs := ""
	if g.maybe(ModuleAttributes, 0.4) {
		attrs = g.dictEntries(1, g.between(1, 2), true)
	}
	mark := g.openScope()
	body := g.graphOps(ind+"  ", nil, nil, depth, g.between(1, g.cfg.MaxTopLevelOps), true)
	g.closeScope(mark)
	return g.choose(
		alt{ExplicitModule, 1, func() string {
			s := ind + `"builtin.module"()`
			if name != "" {
				s += ` <{sym_name = "` + name + `"}>`
			}
			s += " ({\n" + body + ind + "})"
			if attrs != "" {
				s += " {" + attrs + "}"
			}
			return s + " : () -> ()" + g.trailingLoc() + "\n"
		}},
		alt{CustomModule, 1, func() string {
			s := ind + "module"
			if name != "" {
				s += " @" + name
			}
			if attrs != "" {
				s += " attributes {" + attrs + "}"
			}
			return s + " {\n" + body + ind + "}" + g.trailingLoc() + "\n"
		}},
	)
}
