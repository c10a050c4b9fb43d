package filecheck

import (
	"io"
	"strings"
)

// defineCmdlineVariables sets the -D variables before the check file is
// read. Like FileCheck, it writes the definitions into a "Global defines"
// buffer so that errors can point into them, and reports every error.
func defineCmdlineVariables(w io.Writer, ctx *context, defines []string) bool {
	if len(defines) == 0 {
		return true
	}
	type defRef struct{ start, length int }
	var diagText strings.Builder
	var refs []defRef
	for i, def := range defines {
		prefix := "Global define #" + itoa(i+1) + ": "
		eq := strings.IndexByte(def, '=')
		if eq < 0 {
			refs = append(refs, defRef{diagText.Len(), 0})
			continue
		}
		if def[0] == '#' {
			diagText.WriteString(prefix + def + " (parsed as: [[")
			subst := def[:eq] + ":" + def[eq+1:]
			refs = append(refs, defRef{diagText.Len(), len(subst)})
			diagText.WriteString(subst + "]])\n")
		} else {
			diagText.WriteString(prefix)
			refs = append(refs, defRef{diagText.Len(), len(def)})
			diagText.WriteString(def + "\n")
		}
	}
	buf := newSourceBuffer("Global defines", []byte(diagText.String()))
	ok := true
	fail := func(err *diagError) {
		logError(w, err)
		ok = false
	}
	for _, r := range refs {
		def := ref{buf, r.start, r.start + r.length}
		if def.empty() {
			fail(errorAt(def.loc(), "missing equal sign in global definition"))
			continue
		}
		if def.at(0) == '#' {
			np := &numericParser{ctx: ctx}
			e, v, err := np.parseSubstitutionBlock(def.from(1), false)
			if err != nil {
				fail(err)
				continue
			}
			if e.ast == nil {
				// FileCheck dereferences the missing expression and
				// crashes; report it instead.
				fail(errorAt(def.loc(), "missing numeric expression in global definition"))
				continue
			}
			value, errs := e.ast.eval()
			if errs != nil {
				for _, e := range errs {
					fail(&diagError{msg: e.message()})
				}
				continue
			}
			v.value = value
			ctx.numericVars[v.name] = v
			continue
		}
		eq := def.indexByte('=')
		name := def.take(eq)
		orig := name
		props, err := parseVariable(&name)
		if err != nil {
			fail(err)
			continue
		}
		if props.isPseudo || !name.empty() {
			fail(errorAt(orig.loc(), "invalid name in string variable definition '"+orig.str()+"'"))
			continue
		}
		n := props.name.str()
		if _, exists := ctx.numericVars[n]; exists {
			fail(errorAt(props.name.loc(), "numeric variable with name '"+n+"' already exists"))
			continue
		}
		if _, exists := ctx.globalVars[n]; !exists {
			ctx.globalVars[n] = stringValue{text: def.from(eq + 1).bytes()}
		}
		ctx.definedVars[n] = true
	}
	return ok
}
