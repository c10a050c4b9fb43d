package toolkit

import (
	"strings"
	"testing"
)

func TestBinaryInputs(t *testing.T) {
	long := strings.Repeat("é", 40000) // a rune cut by the 64 KiB window
	for _, c := range []struct {
		name          string
		src           string
		binary, maybe bool
	}{
		{"IR text", "module {\n\t%0 = \"a.b\"() : () -> ()\r\n}\n", false, false},
		{"UTF-8 text past the window", long, false, false},
		{"a NUL", "IPUPKG\x00\x03", true, true},
		{"not UTF-8", "module \xff\xfe", true, true},
		{"a protobuf field tag", "\x08\x08\x12\x04test", false, true},
		{"empty", "", false, false},
	} {
		if got := Binary([]byte(c.src)); got != c.binary {
			t.Errorf("%s: Binary = %v", c.name, got)
		}
		if got := MaybeBinary([]byte(c.src)); got != c.maybe {
			t.Errorf("%s: MaybeBinary = %v", c.name, got)
		}
	}
}
