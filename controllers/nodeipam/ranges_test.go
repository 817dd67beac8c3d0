package nodeipam

import (
	"fmt"
	"net/netip"
	"testing"
)

// TestRanges: ranges are handed out in turn, once each; a node keeps its range; a freed range
// is handed out again; ranges overlapping the Service range never are; a full cluster CIDR
// says so.
func TestRanges(t *testing.T) {
	r, err := newRanges(netip.MustParsePrefix("10.0.0.0/22"), 24, netip.MustParsePrefix("10.0.1.0/28"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, n := range []string{"a", "b", "c"} {
		p, ok := r.allocate(n)
		if !ok {
			t.Fatalf("%s: no range", n)
		}
		got[n] = p.String()
	}
	// 10.0.1.0/24 holds the Service range: skipped.
	if want := map[string]string{"a": "10.0.0.0/24", "b": "10.0.2.0/24", "c": "10.0.3.0/24"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("ranges %v, want %v", got, want)
	}
	if p, _ := r.allocate("a"); p.String() != "10.0.0.0/24" {
		t.Errorf("a asked again: %s", p)
	}
	if _, ok := r.allocate("d"); ok {
		t.Error("d got a range from a full cluster CIDR")
	}
	if !r.release("b") || r.release("b") {
		t.Error("release of b: want true once, then false")
	}
	if p, ok := r.allocate("d"); !ok || p.String() != "10.0.2.0/24" {
		t.Errorf("d after b's release: %s %v", p, ok)
	}
	// What nodes hold already is theirs; what is not a range of ours is refused.
	r2, _ := newRanges(netip.MustParsePrefix("10.0.0.0/22"), 24, netip.Prefix{})
	if err := r2.occupy("x", netip.MustParsePrefix("10.0.0.0/24")); err != nil {
		t.Error(err)
	}
	for _, p := range []string{"10.0.0.0/24", "10.0.1.0/25", "10.9.0.0/24", "10.0.1.1/24"} {
		if err := r2.occupy("y", netip.MustParsePrefix(p)); err == nil {
			t.Errorf("y occupied %s", p)
		}
	}
	if p, _ := r2.allocate("z"); p.String() != "10.0.1.0/24" {
		t.Errorf("z got %s, want the first range x does not hold", p)
	}
}

// TestCapacity: how many node ranges a cluster CIDR holds, and what does not fit.
func TestCapacity(t *testing.T) {
	for _, tc := range []struct {
		cidr string
		mask int
		want int // -1: an error
	}{
		{"10.224.0.0/11", 24, 8192},
		{"10.244.0.0/16", 24, 256},
		{"10.0.0.0/8", 24, 65536},
		{"10.0.0.0/8", 25, -1},
		{"10.0.0.0/16", 15, -1},
		{"10.0.0.0/16", 31, -1},
		{"fd00::/48", 64, -1},
	} {
		n, err := Capacity(netip.MustParsePrefix(tc.cidr), tc.mask)
		if (err != nil) != (tc.want < 0) || (err == nil && n != tc.want) {
			t.Errorf("%s /%d: %d %v, want %d", tc.cidr, tc.mask, n, err, tc.want)
		}
	}
}
