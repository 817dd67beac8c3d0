package chain_test

import (
	"strings"
	"testing"

	cliflag "k8s.io/component-base/cli/flag"

	"github.com/apichain/apichain/servers/chain"
)

// TestPriorityAndFairnessOptions: kube-apiserver's three flags parse into the options, with its
// defaults, and validation refuses what kube-apiserver refuses: a negative limit, and a total
// of zero under API Priority and Fairness (the sum is the server's concurrency limit); without
// it, 0 means no limit.
func TestPriorityAndFairnessOptions(t *testing.T) {
	for _, tc := range []struct {
		args        []string
		apf         bool
		reads, muts int
		err         string // "" for valid
	}{
		{nil, true, 400, 200, ""},
		{[]string{"--enable-priority-and-fairness=false"}, false, 400, 200, ""},
		{[]string{"--max-requests-inflight=10", "--max-mutating-requests-inflight=0"}, true, 10, 0, ""},
		{[]string{"--max-requests-inflight=0", "--max-mutating-requests-inflight=0"}, true, 0, 0, "must add up to more than 0"},
		{[]string{"--enable-priority-and-fairness=false", "--max-requests-inflight=0", "--max-mutating-requests-inflight=0"}, false, 0, 0, ""},
		{[]string{"--max-mutating-requests-inflight=-1"}, true, 400, -1, "must not be negative"},
	} {
		o := chain.NewOptions()
		var fss cliflag.NamedFlagSets
		o.AddFlags(&fss)
		if err := fss.FlagSet("priority and fairness").Parse(tc.args); err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		if o.EnablePriorityAndFairness != tc.apf || o.MaxRequestsInFlight != tc.reads || o.MaxMutatingRequestsInFlight != tc.muts {
			t.Errorf("%v: APF %v, %d, %d; want %v, %d, %d", tc.args, o.EnablePriorityAndFairness, o.MaxRequestsInFlight,
				o.MaxMutatingRequestsInFlight, tc.apf, tc.reads, tc.muts)
		}
		o.DataDir = t.TempDir()
		c, err := o.Complete()
		if err != nil {
			t.Fatal(err)
		}
		errs := c.Validate()
		switch {
		case tc.err == "" && len(errs) > 0:
			t.Errorf("%v: %v, want valid", tc.args, errs)
		case tc.err != "" && (len(errs) != 1 || !strings.Contains(errs[0].Error(), tc.err)):
			t.Errorf("%v: %v, want one error saying %q", tc.args, errs, tc.err)
		}
	}
}
