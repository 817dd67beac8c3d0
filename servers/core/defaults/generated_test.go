package defaults

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestGeneratedFilesAreCurrent runs the go:generate line of doc.go on a copy of this package
// tree and compares each zz_generated.defaults.go with the committed one, so that a changed
// SetDefaults_ function without `go generate` fails here. defaulter-gen writes next to its input,
// so the copy is a small module of its own (this module's go.mod and go.sum, the header file and
// servers/core/defaults), never the source tree.
func TestGeneratedFilesAreCurrent(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^//go:generate go (tool defaulter-gen .*)$`).FindSubmatch(doc)
	if m == nil {
		t.Fatal("no defaulter-gen go:generate line in doc.go")
	}

	root := filepath.Join("..", "..", "..")
	copyRoot := t.TempDir()
	for _, f := range []string{"go.mod", "go.sum", filepath.Join("hack", "boilerplate.go.txt")} {
		copyFile(t, filepath.Join(root, f), filepath.Join(copyRoot, f))
	}
	here := filepath.Join(copyRoot, "servers", "core", "defaults")
	err = filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && d.Name() == "testdata":
			return filepath.SkipDir
		case d.IsDir(), !strings.HasSuffix(path, ".go"), strings.HasSuffix(path, "_test.go"), d.Name() == "zz_generated.defaults.go":
			return nil
		}
		copyFile(t, path, filepath.Join(here, path))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	cmd := exec.Command("go", strings.Fields(string(m[1]))...)
	cmd.Dir = here
	cmd.Env = append(os.Environ(), "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("defaulter-gen: %v\n%s", err, out)
	}

	committed, _ := filepath.Glob(filepath.Join("*", "zz_generated.defaults.go"))
	fresh, _ := filepath.Glob(filepath.Join(here, "*", "zz_generated.defaults.go"))
	if len(fresh) != len(committed) {
		t.Errorf("defaulter-gen wrote %d files, %d are committed", len(fresh), len(committed))
	}
	for _, f := range committed {
		want, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(here, f))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("servers/core/defaults/%s is stale: run go generate ./servers/core/defaults", f)
		}
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
