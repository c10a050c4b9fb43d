// Package enum names the values of small enumerations declared as a table
// of names indexed by value, so that each enumeration's String method is
// its table and one line.
package enum

import "fmt"

// Name is names[v], or "typeName(v)" for a value without a name.
func Name[T ~uint8](v T, names []string, typeName string) string {
	if int(v) < len(names) && names[v] != "" {
		return names[v]
	}
	return fmt.Sprintf("%s(%d)", typeName, uint8(v))
}
