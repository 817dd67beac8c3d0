package chain_test

import (
	"strings"
	"testing"

	cliflag "k8s.io/component-base/cli/flag"

	"github.com/apichain/apichain/servers/chain"
)

// TestRecordTracesPerSecondOption: the chain records at most 100 new requests a second past a
// burst by default; --record-traces-per-second changes that, 0 records every request, and a
// negative rate is refused.
func TestRecordTracesPerSecondOption(t *testing.T) {
	o := chain.NewOptions()
	if !o.RecordTraces || o.RecordTracesPerSecond != 100 {
		t.Errorf("defaults: recording %t at %v a second, want true at 100", o.RecordTraces, o.RecordTracesPerSecond)
	}
	var fss cliflag.NamedFlagSets
	o.AddFlags(&fss)
	if err := fss.FlagSet("traces").Parse([]string{"--record-traces-per-second=0"}); err != nil || o.RecordTracesPerSecond != 0 {
		t.Fatalf("--record-traces-per-second=0: %v, %v", err, o.RecordTracesPerSecond)
	}
	for _, tc := range []struct {
		rate float64
		want string // "" for valid
	}{
		{0, ""},
		{2.5, ""},
		{-1, "--record-traces-per-second -1 must not be negative"},
	} {
		all := validationErrors(t, func(o *chain.Options) { o.RecordTracesPerSecond = tc.rate })
		if (tc.want == "") != (all == "") || !strings.Contains(all, tc.want) {
			t.Errorf("rate %v: errors %q, want %q", tc.rate, all, tc.want)
		}
	}
}
