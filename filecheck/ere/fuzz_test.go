package ere

import (
	"bytes"
	"testing"
)

// FuzzFind compiles arbitrary patterns and matches them against arbitrary
// text. Compile must return an error or a usable Regexp, and matches must
// be well-formed: inside the text, groups inside the match, and the same
// bounds with and without captures.
func FuzzFind(f *testing.F) {
	for _, seed := range []struct {
		pattern, text string
		flags         uint8
	}{
		{"a|ab", "xab", 1},
		{`(a+)b\1`, "aabaa", 1},
		{"[[:<:]]foo[[:>:]]", "a foo b", 1},
		{"^$", "a\n\nb", 1},
		{"x{2,3}y*", "xxxxy", 3},
		{"[^]a-c[:digit:]]+", "q\n9]", 1},
		{"((a*)*b)*", "aabab", 0},
		{`\d.[.space.]`, "d \xc3\xa9", 1},
	} {
		f.Add(seed.pattern, seed.text, seed.flags)
	}
	f.Fuzz(func(t *testing.T, pattern, text string, flags uint8) {
		if len(pattern) > 200 || len(text) > 2000 {
			return
		}
		re, err := Compile(pattern, Flags(flags)&(Newline|IgnoreCase))
		if err != nil {
			if re != nil {
				t.Fatalf("Compile(%q) returned both a Regexp and %v", pattern, err)
			}
			if _, err2 := CountGroups(pattern); (err2 == nil) != (err == nil) && err.(*Error).Code != ErrSpace {
				t.Fatalf("Compile and CountGroups disagree on %q: %v vs %v", pattern, err, err2)
			}
			return
		}
		in := []byte(text)
		loc, err1 := re.FindIndex(in)
		sub, err2 := re.FindSubmatchIndex(in)
		if err1 != nil || err2 != nil {
			return // over the budget: no verdict to compare
		}
		if (loc == nil) != (sub == nil) {
			t.Fatalf("%q on %q: FindIndex %v, FindSubmatchIndex %v", pattern, text, loc, sub)
		}
		if loc == nil {
			return
		}
		if loc[0] < 0 || loc[0] > loc[1] || loc[1] > len(in) || loc[0] != sub[0] || loc[1] != sub[1] {
			t.Fatalf("%q on %q: bad match %v / %v", pattern, text, loc, sub)
		}
		if len(sub) != 2*(re.NumSubexp()+1) {
			t.Fatalf("%q: %d slots for %d groups", pattern, len(sub), re.NumSubexp())
		}
		for i := 2; i < len(sub); i += 2 {
			if (sub[i] < 0) != (sub[i+1] < 0) || sub[i] >= 0 && (sub[i] < loc[0] || sub[i+1] > loc[1] || sub[i] > sub[i+1]) {
				t.Fatalf("%q on %q: group %d at %v outside match %v", pattern, text, i/2, sub[i:i+2], loc)
			}
		}
		// Searching a copy with a prefix that cannot affect the match
		// (a newline ends any line-spanning context) finds the same.
		if flags&uint8(Newline) != 0 && !bytes.ContainsAny(in[:loc[0]], "\n") {
			shifted := append([]byte("\n"), in...)
			if l2, _ := re.FindIndex(shifted); l2 == nil || l2[0] > loc[0]+1 {
				t.Fatalf("%q on %q: match %v, after a leading newline %v", pattern, text, loc, l2)
			}
		}
	})
}
