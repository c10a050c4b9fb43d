package filecheck

import "strings"

// stringValue is the value of a string variable: the text, and where it was
// captured from in the input (for "captured var" notes) when it was.
type stringValue struct {
	text     []byte
	captured *span
}

// context holds the variables shared by all patterns of a check file, as
// FileCheckPatternContext does.
type context struct {
	// globalVars are the defined string variables and their values.
	globalVars map[string]stringValue
	// definedVars records every string variable name defined anywhere, to
	// detect clashes with numeric variables while parsing.
	definedVars map[string]bool
	// numericVars maps names to numeric variables, including undefined
	// ones created by uses.
	numericVars    map[string]*numericVariable
	allNumericVars []*numericVariable
	lineVar        *numericVariable
}

func newContext() *context {
	return &context{
		globalVars:  map[string]stringValue{},
		definedVars: map[string]bool{},
		numericVars: map[string]*numericVariable{},
	}
}

func (c *context) createLineVariable() {
	c.lineVar = &numericVariable{name: "@LINE", format: exprFormat{kind: formatUnsigned}}
	c.numericVars["@LINE"] = c.lineVar
}

// clearLocalVars forgets every variable whose name does not start with '$',
// at each CHECK-LABEL boundary under --enable-var-scope.
func (c *context) clearLocalVars() {
	for name := range c.globalVars {
		if !strings.HasPrefix(name, "$") {
			delete(c.globalVars, name)
		}
	}
	for name, v := range c.numericVars {
		if !strings.HasPrefix(name, "$") {
			v.clear()
			delete(c.numericVars, name)
		}
	}
}
