package chain_test

import (
	"strings"
	"testing"
	"time"

	cliflag "k8s.io/component-base/cli/flag"

	"github.com/apichain/apichain/servers/chain"
)

// TestShutdownWatchTerminationGracePeriodOption: kube-apiserver's flag, 5 s by default (where
// upstream's 0 would leave watches open on a stop), and it must be positive.
func TestShutdownWatchTerminationGracePeriodOption(t *testing.T) {
	o := chain.NewOptions()
	if o.ShutdownWatchTerminationGracePeriod != 5*time.Second {
		t.Errorf("default %v, want 5s", o.ShutdownWatchTerminationGracePeriod)
	}
	var fss cliflag.NamedFlagSets
	o.AddFlags(&fss)
	if err := fss.FlagSet("chain").Parse([]string{"--shutdown-watch-termination-grace-period=250ms"}); err != nil || o.ShutdownWatchTerminationGracePeriod != 250*time.Millisecond {
		t.Fatalf("--shutdown-watch-termination-grace-period=250ms: %v %v", err, o.ShutdownWatchTerminationGracePeriod)
	}
	for _, tc := range []struct {
		period time.Duration
		want   string // "" for valid
	}{
		{250 * time.Millisecond, ""},
		{0, "--shutdown-watch-termination-grace-period 0s must be positive"},
		{-time.Second, "--shutdown-watch-termination-grace-period -1s must be positive"},
	} {
		all := validationErrors(t, func(o *chain.Options) { o.ShutdownWatchTerminationGracePeriod = tc.period })
		if (tc.want == "") != (all == "") || !strings.Contains(all, tc.want) {
			t.Errorf("period %v: errors %q, want %q", tc.period, all, tc.want)
		}
	}
}
