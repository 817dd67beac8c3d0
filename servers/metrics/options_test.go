package metrics

import (
	"strings"
	"testing"
	"time"

	cliflag "k8s.io/component-base/cli/flag"
)

func TestOptions(t *testing.T) {
	tests := []struct {
		name string
		args []string
		// check inspects the completed options; wantErrs are substrings of Validate's errors.
		check    func(t *testing.T, o CompletedOptions)
		wantErrs []string
	}{{
		name: "defaults",
		check: func(t *testing.T, o CompletedOptions) {
			if o.MetricResolution != 15*time.Second || o.KubeletRequestTimeout != 10*time.Second || o.SecurePort != 4443 || !o.Register {
				t.Errorf("defaults: %+v", o.Options)
			}
			if o.AdvertiseIP.String() != "127.0.0.1" {
				t.Errorf("advertise %v, want the bind address", o.AdvertiseIP)
			}
			if got := len(o.AddressTypes); got != 5 || o.AddressTypes[0] != "Hostname" {
				t.Errorf("address types %v", o.AddressTypes)
			}
		},
	}, {
		name: "1s resolution derives a timeout within it",
		args: []string{"--metric-resolution=1s"},
		check: func(t *testing.T, o CompletedOptions) {
			if o.KubeletRequestTimeout != 900*time.Millisecond {
				t.Errorf("timeout %v", o.KubeletRequestTimeout)
			}
		},
	}, {
		name:     "resolution below 1s",
		args:     []string{"--metric-resolution=500ms"},
		wantErrs: []string{"--metric-resolution 500ms must be at least 1s"},
	}, {
		name:     "timeout not within the resolution",
		args:     []string{"--metric-resolution=10s", "--kubelet-request-timeout=10s"},
		wantErrs: []string{"at most 90% of --metric-resolution"},
	}, {
		name:     "CA and insecure",
		args:     []string{"--kubelet-certificate-authority=/ca.crt", "--kubelet-insecure-tls"},
		wantErrs: []string{"cannot use both --kubelet-certificate-authority and --kubelet-insecure-tls"},
	}, {
		name:     "client cert without key",
		args:     []string{"--kubelet-client-certificate=/c.crt"},
		wantErrs: []string{"need both --kubelet-client-key and --kubelet-client-certificate"},
	}, {
		name:     "unknown address type",
		args:     []string{"--kubelet-preferred-address-types=InternalIP,Nope"},
		wantErrs: []string{`unknown address type "Nope"`},
	}, {
		name:     "bad node selector",
		args:     []string{"--node-selector=a b"},
		wantErrs: []string{"--node-selector"},
	}, {
		name:     "bad addresses",
		args:     []string{"--bind-address=here", "--advertise-address=there", "--secure-port=70000"},
		wantErrs: []string{`--bind-address "here"`, `--advertise-address "there"`, "--secure-port 70000"},
	}, {
		name:     "IPv6 loopback cannot be registered",
		args:     []string{"--bind-address=::1"},
		wantErrs: []string{"metrics-server.localhost stands for 127.0.0.1"},
	}, {
		name: "IPv6 loopback without registration",
		args: []string{"--bind-address=::1", "--register=false"},
	}, {
		name: "advertise address given",
		args: []string{"--bind-address=0.0.0.0", "--advertise-address=192.0.2.10"},
		check: func(t *testing.T, o CompletedOptions) {
			if o.AdvertiseIP.String() != "192.0.2.10" {
				t.Errorf("advertise %v", o.AdvertiseIP)
			}
		},
	}, {
		name: "delegation uses --kubeconfig",
		args: []string{"--kubeconfig=/chain/admin.kubeconfig"},
		check: func(t *testing.T, o CompletedOptions) {
			if o.Authentication.RemoteKubeConfigFile != "/chain/admin.kubeconfig" || o.Authorization.RemoteKubeConfigFile != "/chain/admin.kubeconfig" {
				t.Errorf("authn %q authz %q", o.Authentication.RemoteKubeConfigFile, o.Authorization.RemoteKubeConfigFile)
			}
		},
	}, {
		name: "delegation kubeconfigs of their own",
		args: []string{"--kubeconfig=/chain/admin.kubeconfig", "--authentication-kubeconfig=/a", "--authorization-kubeconfig=/b"},
		check: func(t *testing.T, o CompletedOptions) {
			if o.Authentication.RemoteKubeConfigFile != "/a" || o.Authorization.RemoteKubeConfigFile != "/b" {
				t.Errorf("authn %q authz %q", o.Authentication.RemoteKubeConfigFile, o.Authorization.RemoteKubeConfigFile)
			}
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := NewOptions()
			var fss cliflag.NamedFlagSets
			o.AddFlags(&fss)
			fs := fss.FlagSet("all")
			for _, f := range fss.FlagSets {
				fs.AddFlagSet(f)
			}
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			c, err := o.Complete()
			if err != nil {
				t.Fatal(err)
			}
			errs := c.Validate()
			if tc.check != nil {
				tc.check(t, c)
			}
			var msgs []string
			for _, e := range errs {
				msgs = append(msgs, e.Error())
			}
			all := strings.Join(msgs, "\n")
			if len(tc.wantErrs) == 0 && len(errs) > 0 {
				t.Errorf("unexpected errors:\n%s", all)
			}
			for _, want := range tc.wantErrs {
				if !strings.Contains(all, want) {
					t.Errorf("errors lack %q:\n%s", want, all)
				}
			}
		})
	}
}

// TestNewCommand builds the command twice, as a test process or the chain may: nothing in it
// is process-global.
func TestNewCommand(t *testing.T) {
	for range 2 {
		cmd := NewCommand()
		if cmd.Use != "metrics-server" || cmd.Flags().Lookup("metric-resolution") == nil || cmd.Flags().Lookup("kubeconfig") == nil {
			t.Fatalf("command %q lacks flags", cmd.Use)
		}
	}
}
