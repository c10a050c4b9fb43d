package nearest

import "testing"

func TestName(t *testing.T) {
	known := []string{"canonicalize", "cse", "tiled-prepare", "ipu21", "ipu2", "exchange-latency-cycles"}
	for _, c := range []struct{ want, got string }{
		{"canonicalise", "canonicalize"},
		{"ipu22", "ipu21"},
		{"IPU21", "ipu21"},
		{"exchange-latency", "exchange-latency-cycles"},
		{"tiled-prep", "tiled-prepare"},
		{"foo", ""},
		{"cse", ""}, // a known name is not a typo
		{"", ""},
	} {
		if got := Name(c.want, known); got != c.got {
			t.Errorf("Name(%q) = %q, want %q", c.want, got, c.got)
		}
	}
	if d := Distance("kitten", "sitting"); d != 3 {
		t.Errorf("Distance = %d", d)
	}
}
