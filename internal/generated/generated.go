// Package generated checks, from tests, that a generated file is what its go:generate line
// produces today, so that a change of input without `go generate` fails the suite.
package generated

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// CheckOpenAPI runs the openapi-gen line of doc.go (in the test's package directory) into a
// temporary directory and compares its output with the committed zz_generated.openapi.go.
func CheckOpenAPI(t *testing.T) {
	t.Helper()
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^//go:generate go (tool openapi-gen .*)$`).FindSubmatch(doc)
	if m == nil {
		t.Fatal("no openapi-gen go:generate line in doc.go")
	}
	dir := t.TempDir()
	args := strings.Fields(string(m[1]))
	for i, a := range args {
		switch a {
		case "--output-dir":
			args[i+1] = dir
		case "--go-header-file":
			args[i+1], _ = filepath.Abs(args[i+1])
		}
	}
	if out, err := exec.Command("go", args...).CombinedOutput(); err != nil {
		t.Fatalf("openapi-gen: %v\n%s", err, out)
	}
	fresh, err := os.ReadFile(filepath.Join(dir, "zz_generated.openapi.go"))
	if err != nil {
		t.Fatal(err)
	}
	committed, err := os.ReadFile("zz_generated.openapi.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(fresh, committed) {
		wd, _ := os.Getwd()
		t.Errorf("%s/zz_generated.openapi.go is stale: run go generate in that directory", wd)
	}
}
