package chain_test

import (
	"testing"

	cliflag "k8s.io/component-base/cli/flag"

	"github.com/apichain/apichain/controllers"
	"github.com/apichain/apichain/servers/chain"
)

// TestControllersOption: --controllers reads as kube-controller-manager's does (its short
// names too), and an empty value runs none (the chain as envtest runs kube-apiserver: API
// servers and etcd alone).
func TestControllersOption(t *testing.T) {
	for _, tc := range []struct {
		flag string
		want func(name string) bool
	}{
		{"", func(string) bool { return true }}, // the default, "*"
		{"--controllers=", func(string) bool { return false }},
		{"--controllers=*,-scheduler", func(n string) bool { return n != "scheduler" }},
		{"--controllers=scheduler,namespace-controller", func(n string) bool { return n == "scheduler" || n == "namespace-controller" }},
		// kube-controller-manager's short name, alone or taken out.
		{"--controllers=podgc", func(n string) bool { return n == controllers.PodGarbageCollector }},
		{"--controllers=*,-podgc", func(n string) bool { return n != controllers.PodGarbageCollector }},
		// kube-controller-manager's aliases, in both syntaxes.
		{"--controllers=statefulset,daemonset,cronjob,replicationcontroller", func(n string) bool {
			return n == "statefulset-controller" || n == "daemonset-controller" || n == "cronjob-controller" || n == "replicationcontroller-controller"
		}},
		{"--controllers=*,-deployment,-job", func(n string) bool { return n != "deployment-controller" && n != "job-controller" }},
	} {
		o := chain.NewOptions()
		var fss cliflag.NamedFlagSets
		o.AddFlags(&fss)
		if tc.flag != "" {
			if err := fss.FlagSet("metrics and nodes").Parse([]string{tc.flag}); err != nil {
				t.Fatalf("%s: %v", tc.flag, err)
			}
		}
		c, err := o.Complete()
		if err != nil {
			t.Fatalf("%s: %v", tc.flag, err)
		}
		if errs := c.Validate(); len(errs) > 0 {
			t.Fatalf("%s: %v", tc.flag, errs)
		}
		for _, name := range controllers.Names() {
			if got := c.ControllerEnabled(name); got != tc.want(name) {
				t.Errorf("%q: %s enabled = %v, want %v", tc.flag, name, got, !got)
			}
		}
	}
}
