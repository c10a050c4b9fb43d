package filecheck

import "strconv"

type checkKind int

const (
	checkNone checkKind = iota
	checkMisspelled
	checkPlain
	checkNext
	checkSame
	checkNot
	checkDAG
	checkLabel
	checkEmpty
	checkComment
	checkEOF
	checkBadNot
	checkBadCount
)

// checkType is a directive kind with its modifiers, FileCheckType in LLVM.
type checkType struct {
	kind    checkKind
	count   int  // CHECK-COUNT-n; 1 otherwise
	literal bool // the {LITERAL} modifier
}

func (t checkType) modifiers() string {
	if t.literal {
		return "{LITERAL}"
	}
	return ""
}

// description names the directive in messages, e.g. "CHECK-NEXT".
func (t checkType) description(prefix string) string {
	with := func(suffix string) string { return prefix + suffix + t.modifiers() }
	switch t.kind {
	case checkNone:
		return "invalid"
	case checkMisspelled:
		return "misspelled"
	case checkPlain:
		if t.count > 1 {
			return with("-COUNT")
		}
		return with("")
	case checkNext:
		return with("-NEXT")
	case checkSame:
		return with("-SAME")
	case checkNot:
		return with("-NOT")
	case checkDAG:
		return with("-DAG")
	case checkLabel:
		return with("-LABEL")
	case checkEmpty:
		return with("-EMPTY")
	case checkComment:
		return prefix
	case checkEOF:
		return "implicit EOF"
	case checkBadNot:
		return "bad NOT"
	case checkBadCount:
		return "bad COUNT"
	}
	return ""
}

// abbreviation labels the directive in the input dump, e.g. "next".
func (t checkType) abbreviation() string {
	switch t.kind {
	case checkPlain:
		if t.count > 1 {
			return "count"
		}
		return "check"
	case checkNext:
		return "next"
	case checkSame:
		return "same"
	case checkNot:
		return "not"
	case checkDAG:
		return "dag"
	case checkLabel:
		return "label"
	case checkEmpty:
		return "empty"
	case checkComment:
		return "com"
	case checkEOF:
		return "eof"
	case checkBadNot:
		return "bad-not"
	case checkBadCount:
		return "bad-count"
	case checkMisspelled:
		return "misspelled"
	}
	return "invalid"
}

// findCheckType classifies the text after a prefix found at buf[at:]. It
// returns the directive type and the offset just past the suffix (or where
// parsing stopped), mirroring FileCheck's FindCheckType.
func findCheckType(buf []byte, at int, prefix string, isComment bool) (checkType, int) {
	none := checkType{kind: checkNone}
	if len(buf)-at <= len(prefix) {
		return none, -1
	}
	rest := at + len(prefix)
	peek := func(i int) byte {
		// The buffer is NUL terminated in FileCheck; reading one past the
		// end yields 0.
		if i < len(buf) {
			return buf[i]
		}
		return 0
	}
	consume := func(s string) bool {
		if len(buf)-rest >= len(s) && string(buf[rest:rest+len(s)]) == s {
			rest += len(s)
			return true
		}
		return false
	}
	if isComment {
		if consume(":") {
			return checkType{kind: checkComment, count: 1}, rest
		}
		return none, -1
	}
	modifiers := func(t checkType) (checkType, int) {
		if consume(":") {
			return t, rest
		}
		if !consume("{") {
			return none, -1
		}
		for {
			rest = skipSpaces(buf, rest)
			if !consume("LITERAL") {
				return none, rest
			}
			t.literal = true
			rest = skipSpaces(buf, rest)
			if !consume(",") {
				break
			}
		}
		if !consume("}:") {
			return none, rest
		}
		return t, rest
	}
	if consume(":") {
		return checkType{kind: checkPlain, count: 1}, rest
	}
	if peek(rest) == '{' {
		return modifiers(checkType{kind: checkPlain, count: 1})
	}
	misspelled := false
	if consume("_") {
		misspelled = true
	} else if !consume("-") {
		return none, -1
	}
	t, after := findSuffix(buf, rest, &rest, consume, peek, modifiers)
	if t.kind != checkNone && misspelled {
		return checkType{kind: checkMisspelled, count: 1}, after
	}
	return t, after
}

func findSuffix(buf []byte, start int, rest *int, consume func(string) bool, peek func(int) byte,
	modifiers func(checkType) (checkType, int)) (checkType, int) {
	if consume("COUNT-") {
		count, n, ok := parseSignedDecimal(buf[*rest:])
		if !ok {
			return checkType{kind: checkBadCount}, *rest
		}
		*rest += n
		if count <= 0 || count > 1<<31-1 {
			return checkType{kind: checkBadCount}, *rest
		}
		if c := peek(*rest); c != ':' && c != '{' {
			return checkType{kind: checkBadCount}, *rest
		}
		return modifiers(checkType{kind: checkPlain, count: int(count)})
	}
	for _, bad := range []string{"DAG-NOT:", "NOT-DAG:", "NEXT-NOT:", "NOT-NEXT:",
		"SAME-NOT:", "NOT-SAME:", "EMPTY-NOT:", "NOT-EMPTY:"} {
		if len(buf)-*rest >= len(bad) && string(buf[*rest:*rest+len(bad)]) == bad {
			return checkType{kind: checkBadNot}, *rest
		}
	}
	for _, s := range []struct {
		name string
		kind checkKind
	}{{"NEXT", checkNext}, {"SAME", checkSame}, {"NOT", checkNot}, {"DAG", checkDAG},
		{"LABEL", checkLabel}, {"EMPTY", checkEmpty}} {
		if consume(s.name) {
			return modifiers(checkType{kind: s.kind, count: 1})
		}
	}
	return checkType{kind: checkNone}, *rest
}

// parseSignedDecimal parses an optionally negative decimal integer prefix of
// b, as StringRef::consumeInteger does for a signed 64-bit result.
func parseSignedDecimal(b []byte) (value int64, n int, ok bool) {
	i := 0
	if i < len(b) && b[i] == '-' {
		i++
	}
	j := i
	for j < len(b) && b[j] >= '0' && b[j] <= '9' {
		j++
	}
	if j == i {
		return 0, 0, false
	}
	v, err := strconv.ParseInt(string(b[:j]), 10, 64)
	if err != nil {
		return 0, 0, false
	}
	return v, j, true
}

// skipSpaces skips the characters StringRef::ltrim() removes by default.
func skipSpaces(buf []byte, i int) int {
	for i < len(buf) && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' || buf[i] == '\v' ||
		buf[i] == '\f' || buf[i] == '\r') {
		i++
	}
	return i
}

func isPartOfWord(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_'
}
