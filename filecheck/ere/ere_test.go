package ere

import (
	"fmt"
	"testing"
)

func TestCompileErrors(t *testing.T) {
	cases := map[string]string{
		"":            "empty (sub)expression",
		"a|":          "empty (sub)expression",
		"(|a)":        "empty (sub)expression",
		"()":          "",
		"a{0}":        "empty (sub)expression",
		"a{0}b":       "",
		"[0-9]{2":     "braces not balanced",
		"a{1x}":       "invalid repetition count(s)",
		"a{256}":      "invalid repetition count(s)",
		"a{2,1}":      "invalid repetition count(s)",
		"a{,2}":       "",
		"a**":         "repetition-operator operand invalid",
		"^*":          "repetition-operator operand invalid",
		"*a":          "repetition-operator operand invalid",
		"{1}":         "repetition-operator operand invalid",
		"{":           "",
		"(a":          "parentheses not balanced",
		"a)":          "parentheses not balanced",
		"(":           "parentheses not balanced",
		"[a":          "brackets ([ ]) not balanced",
		"[z-a]":       "invalid character range",
		"[a-z-0]":     "invalid character range",
		"[[:foo:]]":   "invalid character class",
		"[[.foo.]]":   "invalid collating element",
		"[[.space.]]": "",
		`a\`:          `trailing backslash (\)`,
		`(a)\2`:       "invalid backreference number",
		`(a\1)`:       "invalid backreference number",
		`(a)\1`:       "",
		`\d`:          "",
		"[]a]":        "",
		"[^]a]":       "",
		"[a-]":        "",
		"[[:<:]]a":    "",
	}
	for pattern, want := range cases {
		err := Validate(pattern)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != want {
			t.Errorf("Validate(%q) = %q, want %q", pattern, got, want)
		}
	}
}

func TestLeftmostLongest(t *testing.T) {
	cases := []struct {
		pattern, text string
		flags         Flags
		want          string // "start,end" and groups, or "nil"
	}{
		{"a|ab", "xab", Newline, "[1 3]"},
		{"(a|ab)", "xab", Newline, "[1 3 1 3]"},
		{`\d`, "1d", Newline, "[1 2]"},
		{"a.c", "a\nc abc", Newline, "[4 7]"},
		{"a[^x]c", "a\nc", Newline, "nil"},
		{"a[^x]c", "a\nc", 0, "[0 3]"},
		{"^b", "a\nb", Newline, "[2 3]"},
		{"a$", "a\nb", Newline, "[0 1]"},
		{"a..b", "a\xc3\xa9b", Newline, "[0 4]"},
		{"ABC", "xabc", Newline | IgnoreCase, "[1 4]"},
		{"[[:<:]]foo", "xfoo foo", Newline, "[5 8]"},
		{"foo[[:>:]]", "foox foo", Newline, "[5 8]"},
		{`(a+)b\1`, "aab aabaa", Newline, "[4 9 4 6]"},
		{`(a*)*b`, "aaab", Newline, "[0 4 0 3]"},
		{"x*", "abc", Newline, "[0 0]"},
		{"(a)(b)?", "a", Newline, "[0 1 0 1 -1 -1]"},
		{"a{2,3}", "aaaa", Newline, "[0 3]"},
		{"[0-9]+ = foo", "12 = bar\n34 = foo", Newline, "[9 17]"},
	}
	for _, c := range cases {
		re, err := Compile(c.pattern, c.flags)
		if err != nil {
			t.Fatalf("Compile(%q): %v", c.pattern, err)
		}
		got := "nil"
		if loc, _ := re.FindSubmatchIndex([]byte(c.text)); loc != nil {
			got = fmt.Sprint(loc)
		}
		if got != c.want {
			t.Errorf("%q on %q = %s, want %s", c.pattern, c.text, got, c.want)
		}
	}
}
