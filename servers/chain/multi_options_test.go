package chain_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	cliflag "k8s.io/component-base/cli/flag"

	"github.com/apichain/apichain/servers/chain"
)

// TestBeyondOneMachineOptions: the flags of several instances on one etcd cluster parse into the
// options, and their validation says what is wrong.
func TestBeyondOneMachineOptions(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "ca.crt")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	o := chain.NewOptions()
	var fss cliflag.NamedFlagSets
	o.AddFlags(&fss)
	args := map[string][]string{
		"chain":           {"--pki-dir=" + dir, "--identity-lease-duration=3s", "--identity-lease-renew-interval=1s"},
		"etcd":            {"--etcd-servers=https://a:2379,https://b:2379", "--etcd-cafile=" + file, "--etcd-certfile=" + file, "--etcd-keyfile=" + file},
		"leader election": {"--leader-elect-lease-duration=3s", "--leader-elect-renew-deadline=2s", "--leader-elect-retry-period=500ms"},
	}
	for set, a := range args {
		if err := fss.FlagSet(set).Parse(a); err != nil {
			t.Fatalf("%s: %v", set, err)
		}
	}
	if o.PKIDir != dir || o.EtcdCAFile != file || o.EtcdCertFile != file || o.EtcdKeyFile != file ||
		o.IdentityLeaseDuration != 3*time.Second || o.LeaderElection.RetryPeriod.Duration != 500*time.Millisecond || !o.LeaderElection.LeaderElect {
		t.Fatalf("flags not parsed into the options: %+v", o)
	}

	for _, tc := range []struct {
		name   string
		change func(o *chain.Options)
		want   string // "" for valid
	}{
		{"defaults", func(*chain.Options) {}, ""},
		{"tls", func(o *chain.Options) {
			o.EtcdServers = []string{"https://a:2379"}
			o.EtcdCAFile, o.EtcdCertFile, o.EtcdKeyFile = file, file, file
		}, ""},
		{"tls without external etcd", func(o *chain.Options) { o.EtcdCAFile = file }, "--etcd-cafile is for an external etcd"},
		{"cert without key", func(o *chain.Options) {
			o.EtcdServers = []string{"https://a:2379"}
			o.EtcdCertFile = file
		}, "--etcd-certfile and --etcd-keyfile go together"},
		{"missing ca", func(o *chain.Options) {
			o.EtcdServers = []string{"https://a:2379"}
			o.EtcdCAFile = filepath.Join(dir, "missing")
		}, "--etcd-cafile: stat"},
		{"fractional lease", func(o *chain.Options) { o.IdentityLeaseDuration = 1500 * time.Millisecond }, "--identity-lease-duration 1.5s must be whole seconds"},
		{"renew after expiry", func(o *chain.Options) { o.IdentityLeaseRenewInterval = 2 * time.Hour }, "--identity-lease-renew-interval 2h0m0s must be positive and shorter"},
		{"renew deadline past lease", func(o *chain.Options) { o.LeaderElection.RenewDeadline.Duration = time.Minute }, "--leader-elect-*"},
		{"configmap lock", func(o *chain.Options) { o.LeaderElection.ResourceLock = "configmaps" }, "only leases is supported"},
		{"no leader election, no checks", func(o *chain.Options) {
			o.LeaderElection.LeaderElect = false
			o.LeaderElection.RenewDeadline.Duration = time.Minute
		}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := chain.NewOptions()
			o.DataDir = t.TempDir()
			tc.change(o)
			c, err := o.Complete()
			if err != nil {
				t.Fatal(err)
			}
			if want := filepath.Join(o.DataDir, "pki"); c.PKIDir != want && o.PKIDir == "" {
				t.Errorf("PKIDir %q, want %q", c.PKIDir, want)
			}
			errs := c.Validate()
			var got []string
			for _, e := range errs {
				got = append(got, e.Error())
			}
			switch {
			case tc.want == "" && len(errs) > 0:
				t.Errorf("unexpected errors: %v", got)
			case tc.want != "" && !strings.Contains(strings.Join(got, "\n"), tc.want):
				t.Errorf("errors %q do not say %q", got, tc.want)
			}
		})
	}
}
