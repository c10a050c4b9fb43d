package filecheck

import "math/big"

func bigInt(n int) *big.Int { return big.NewInt(int64(n)) }

// writeEscaped appends s escaped like raw_ostream::write_escaped: backslash,
// tab, newline and quote get C escapes, other unprintable bytes octal ones.
func writeEscaped(dst []byte, s []byte) []byte {
	for _, c := range s {
		switch c {
		case '\\':
			dst = append(dst, '\\', '\\')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '"':
			dst = append(dst, '\\', '"')
		default:
			if c >= 0x20 && c <= 0x7e {
				dst = append(dst, c)
				continue
			}
			dst = append(dst, '\\', '0'+(c>>6)&7, '0'+(c>>3)&7, '0'+c&7)
		}
	}
	return dst
}

// editDistance is the Levenshtein distance FileCheck uses to rank
// "possible intended match" candidates.
func editDistance(a, b []byte) int {
	row := make([]int, len(b)+1)
	for j := range row {
		row[j] = j
	}
	for i := 1; i <= len(a); i++ {
		prev := row[0]
		row[0] = i
		for j := 1; j <= len(b); j++ {
			old := row[j]
			best := prev
			if a[i-1] != b[j-1] {
				best = min(prev, row[j-1], row[j]) + 1
			} else {
				best = min(prev, row[j-1]+1, row[j]+1)
			}
			row[j] = best
			prev = old
		}
	}
	return row[len(b)]
}
