// Package reference finds the repository's copy of kube-apiserver v1.37.2's observed behaviour
// (this folder's README says what is here and how it was captured), for the tests that hold
// Core to it. Only tests import it.
package reference

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Dir is this folder, wherever the test that asks runs from.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(file)
}

// Path is the path of a file of the reference, such as "defaulted/pod.json".
func Path(name string) string { return filepath.Join(Dir(), filepath.FromSlash(name)) }

// Read reads a file of the reference, failing t if it cannot.
func Read(t testing.TB, name string) []byte {
	t.Helper()
	raw, err := os.ReadFile(Path(name))
	if err != nil {
		t.Fatal(err)
	}
	return raw
}
