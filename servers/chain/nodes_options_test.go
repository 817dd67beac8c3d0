package chain_test

import (
	"fmt"
	"strings"
	"testing"

	cliflag "k8s.io/component-base/cli/flag"

	"github.com/apichain/apichain/servers/chain"
)

// TestNodesOptions: the flags of the nodes and their pod ranges are checked before anything
// starts; --nodes may go as far as --cluster-cidr holds ranges of --node-cidr-mask-size (one
// of them the host's), 8,191 with the defaults.
func TestNodesOptions(t *testing.T) {
	for _, tc := range []struct {
		flags []string
		err   string // a part of the one error wanted; "" for none
	}{
		{nil, ""},
		{[]string{"--nodes=1000"}, ""},
		{[]string{"--nodes=5000"}, ""},
		{[]string{"--nodes=8191"}, ""},
		{[]string{"--nodes=8192"}, "--nodes 8192 must be between 0 and 8191"},
		{[]string{"--nodes=-1"}, "--nodes -1 must be between 0 and 8191"},
		{[]string{"--cluster-cidr=10.244.0.0/16", "--nodes=255"}, ""},
		{[]string{"--cluster-cidr=10.244.0.0/16", "--nodes=256"}, "--nodes 256 must be between 0 and 255"},
		{[]string{"--cluster-cidr=10.244.0.0/16", "--node-cidr-mask-size=26", "--nodes=1000"}, ""},
		{[]string{"--cluster-cidr=nonsense"}, `--cluster-cidr "nonsense" is not a CIDR`},
		{[]string{"--cluster-cidr=fd00::/48"}, "must be an IPv4 CIDR"},
		{[]string{"--node-cidr-mask-size=8"}, "--node-cidr-mask-size 8 must be between 11"},
		{[]string{"--node-cidr-mask-size=31"}, "--node-cidr-mask-size 31 must be between 11"},
		{[]string{"--cluster-cidr=10.0.0.0/8", "--node-cidr-mask-size=30"}, "at most 16 bits longer"},
		{[]string{"--node-status-report-frequency=0s"}, "--node-status-report-frequency 0s must be 1s or more"},
	} {
		name := strings.Join(tc.flags, " ")
		o := chain.NewOptions()
		var fss cliflag.NamedFlagSets
		o.AddFlags(&fss)
		if err := fss.FlagSet("metrics and nodes").Parse(tc.flags); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		c, err := o.Complete()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		errs := c.Validate()
		switch {
		case tc.err == "" && len(errs) > 0:
			t.Errorf("%s: %v", name, errs)
		case tc.err != "" && (len(errs) != 1 || !strings.Contains(errs[0].Error(), tc.err)):
			t.Errorf("%s: errors %v, want one containing %q", name, fmt.Sprint(errs), tc.err)
		}
	}
}
