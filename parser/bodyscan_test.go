package parser

import (
	"errors"
	"slices"
	"testing"

	"github.com/ipuir/ipuir/ir"
)

// Tuples reads lists of fixed-size integer lists, the shape of schedules'
// segments, boxes and per-tile runs, and places its errors at their byte
// (offsets count the body's opening '<').
func TestTuples(t *testing.T) {
	for _, c := range []struct {
		body string
		want [][]int64
		err  string
		at   int
	}{
		{"[[1, 2], [3, -4]]", [][]int64{{1, 2}, {3, -4}}, "", 0},
		{"[]", nil, "", 0},
		{"[[1, 2], [3]]", nil, "a pair is [a, b]", 13},
		{"[[1, 2, 3]]", nil, "more than 2 integers", 8},
		{"[[1, 2] [3, 4]]", nil, "expected ',', got '['", 9},
	} {
		sc, err := NewBodyScanner("<" + c.body + ">")
		if err != nil {
			t.Fatal(err)
		}
		var got [][]int64
		err = sc.Tuples(2, "a pair is [a, b]", func(i int, v []int64) error {
			if i != len(got) {
				t.Errorf("%q: tuple %d called as %d", c.body, len(got), i)
			}
			got = append(got, slices.Clone(v))
			return nil
		})
		var be *ir.BodyError
		switch {
		case c.err == "" && (err != nil || !slices.EqualFunc(got, c.want, slices.Equal[[]int64])):
			t.Errorf("%q: %v, %v; want %v", c.body, got, err, c.want)
		case c.err != "" && (!errors.As(err, &be) || be.Message != c.err || be.Offset != c.at):
			t.Errorf("%q: %v (%+v), want %q at %d", c.body, err, be, c.err, c.at)
		}
	}
}
