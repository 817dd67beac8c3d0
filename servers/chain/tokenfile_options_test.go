package chain_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	cliflag "k8s.io/component-base/cli/flag"

	"github.com/apichain/apichain/servers/chain"
)

// TestTokenAuthFileOption: --token-auth-file is a flag of the authentication group, and must
// name a readable file.
func TestTokenAuthFileOption(t *testing.T) {
	o := chain.NewOptions()
	var fss cliflag.NamedFlagSets
	o.AddFlags(&fss)
	file := filepath.Join(t.TempDir(), "tokens.csv")
	if err := os.WriteFile(file, []byte("t,u,1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := fss.FlagSet("authentication").Parse([]string{"--token-auth-file=" + file}); err != nil || o.TokenAuthFile != file {
		t.Fatalf("--token-auth-file: %v %q", err, o.TokenAuthFile)
	}
	for _, tc := range []struct {
		file, want string
	}{
		{file, ""},
		{"", ""},
		{filepath.Join(t.TempDir(), "missing.csv"), "--token-auth-file: stat "},
		{t.TempDir(), "is a directory"},
	} {
		o := chain.NewOptions()
		o.DataDir = t.TempDir()
		o.TokenAuthFile = tc.file
		c, err := o.Complete()
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range c.Validate() {
			if strings.Contains(e.Error(), "token-auth-file") {
				got = append(got, e.Error())
			}
		}
		switch {
		case tc.want == "" && len(got) > 0:
			t.Errorf("%q: unexpected %v", tc.file, got)
		case tc.want != "" && (len(got) != 1 || !strings.Contains(got[0], tc.want)):
			t.Errorf("%q: got %v, want one error containing %q", tc.file, got, tc.want)
		}
	}
}
