package commands

import (
	"bytes"
	"strings"
	"testing"
)

// TestHelpShowsEachCommandsFlags: `chain --help` lists the chain's flags in their sets, and
// each subcommand's --help its own flags, not the chain's.
func TestHelpShowsEachCommandsFlags(t *testing.T) {
	for _, c := range []struct {
		args      []string
		want, not []string
	}{
		{args: []string{"--help"}, want: []string{"Chain flags:", "--data-dir", "Traces flags:", "--record-traces-per-second float"}},
		{args: []string{"trace", "--help"}, want: []string{"chain trace [flags]", "--slower-than", "--user", "--web"}, not: []string{"--data-dir", "Chain flags:"}},
		{args: []string{"etcdctl", "--help"}, want: []string{"--keys-only", "--prefix"}, not: []string{"Chain flags:", "--etcd-servers"}},
		{args: []string{"apiservice", "--help"}, want: []string{"--kubeconfig"}, not: []string{"--data-dir"}},
		{args: []string{"metrics-server", "--help"}, want: []string{"--metric-resolution"}, not: []string{"--data-dir"}},
	} {
		cmd := NewCommand()
		var out bytes.Buffer
		cmd.SetOut(&out)
		cmd.SetErr(&out)
		cmd.SetArgs(c.args)
		if err := cmd.Execute(); err != nil {
			t.Fatalf("chain %v: %v", c.args, err)
		}
		for _, w := range c.want {
			if !strings.Contains(out.String(), w) {
				t.Errorf("chain %v does not show %q:\n%s", c.args, w, out.String())
			}
		}
		for _, n := range c.not {
			if strings.Contains(out.String(), n) {
				t.Errorf("chain %v shows %q, which is not its own:\n%s", c.args, n, out.String())
			}
		}
	}
}
