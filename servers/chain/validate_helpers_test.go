package chain_test

import (
	"strings"
	"testing"

	"github.com/apichain/apichain/servers/chain"
)

// validationErrors completes the default options changed by mod (in a temp data dir) and
// returns what Validate says of them, one error a line; "" when they are valid.
func validationErrors(t *testing.T, mod func(*chain.Options)) string {
	t.Helper()
	o := chain.NewOptions()
	o.DataDir = t.TempDir()
	mod(o)
	c, err := o.Complete()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range c.Validate() {
		got = append(got, e.Error())
	}
	return strings.Join(got, "\n")
}
