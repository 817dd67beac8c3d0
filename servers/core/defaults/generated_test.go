package defaults

import (
	"testing"

	"github.com/apichain/apichain/test/generated"
)

// TestGeneratedFilesAreCurrent: a changed SetDefaults_ function without `go generate` fails here.
func TestGeneratedFilesAreCurrent(t *testing.T) {
	generated.Check(t)
}
