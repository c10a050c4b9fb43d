// Package nearest finds the known name nearest to a mistyped one, for the
// "did you mean" of every place a user names something: flags, passes,
// targets, target options, ops.
package nearest

import "strings"

// Name returns the name among known nearest to want by edit distance
// (Levenshtein, ignoring case), or "" when none is near enough to be the
// name meant: within half of want's length.
func Name(want string, known []string) string {
	w := strings.ToLower(want)
	best, bestDist := "", len(w)/2+1
	for _, k := range known {
		if k == want {
			continue
		}
		if d := Distance(w, strings.ToLower(k)); d < bestDist {
			best, bestDist = k, d
		}
	}
	return best
}

// Distance is the Levenshtein distance of a and b, in bytes.
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Suffix is "; did you mean 'NAME'?" for the name nearest want, or "".
func Suffix(want string, known []string) string {
	if n := Name(want, known); n != "" {
		return "; did you mean '" + n + "'?"
	}
	return ""
}

// Paren is " (did you mean 'NAME'?)" for the name nearest want, or "".
func Paren(want string, known []string) string {
	if n := Name(want, known); n != "" {
		return " (did you mean '" + n + "'?)"
	}
	return ""
}
