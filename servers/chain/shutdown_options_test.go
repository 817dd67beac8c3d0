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
	for _, period := range []time.Duration{250 * time.Millisecond, 0, -time.Second} {
		o := chain.NewOptions()
		o.DataDir = t.TempDir()
		o.ShutdownWatchTerminationGracePeriod = period
		c, err := o.Complete()
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range c.Validate() {
			if strings.Contains(e.Error(), "shutdown-watch-termination-grace-period") {
				got = append(got, e.Error())
			}
		}
		if want := period <= 0; want != (len(got) == 1) || len(got) > 1 {
			t.Errorf("%v: errors %v, want one only if not positive", period, got)
		}
	}
}
