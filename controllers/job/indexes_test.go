package job

import (
	"slices"
	"testing"
)

func TestIndexes(t *testing.T) {
	for in, want := range map[string][]int{
		"":           nil,
		"3":          {3},
		"0-2,5,7-8":  {0, 1, 2, 5, 7, 8},
		"1,2,3,9,10": {1, 2, 3, 9, 10},
	} {
		set := parseIndexes(in)
		got := set.UnsortedList()
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("parse %q: %v, want %v", in, got, want)
		}
		canonical := map[string]string{"1,2,3,9,10": "1-3,9-10"}[in]
		if canonical == "" {
			canonical = in
		}
		if out := formatIndexes(set); out != canonical {
			t.Errorf("format %v: %q, want %q", want, out, canonical)
		}
	}
}
