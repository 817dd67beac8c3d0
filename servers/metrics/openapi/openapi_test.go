package openapi

import (
	"testing"

	"github.com/apichain/apichain/test/generated"
)

// TestGeneratedFileIsCurrent: a new API group without `go generate` fails here.
func TestGeneratedFileIsCurrent(t *testing.T) {
	generated.Check(t)
}
