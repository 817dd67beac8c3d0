package declarative

import (
	"testing"

	"github.com/apichain/apichain/test/generated"
)

// TestGeneratedFilesAreCurrent: a k8s.io/api upgrade or a new group without `go generate`
// fails here.
func TestGeneratedFilesAreCurrent(t *testing.T) {
	generated.Check(t)
}
