package openapi

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestGeneratedFileIsCurrent regenerates the definitions with the go:generate line of doc.go
// into a temp dir and compares: a new API group without `go generate` fails here.
func TestGeneratedFileIsCurrent(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^//go:generate go (tool openapi-gen .*)$`).FindSubmatch(doc)
	if m == nil {
		t.Fatal("no go:generate line in doc.go")
	}
	dir := t.TempDir()
	args := strings.Fields(string(m[1]))
	for i, a := range args {
		if a == "--output-dir" {
			args[i+1] = dir
		}
		if a == "--go-header-file" {
			args[i+1], _ = filepath.Abs(args[i+1])
		}
	}
	cmd := exec.Command("go", args...)
	if out, err := cmd.CombinedOutput(); err != nil {
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
		t.Errorf("zz_generated.openapi.go is stale: run go generate ./servers/core/openapi")
	}
}
