// Package generated checks, from tests, that generated files are what their go:generate lines
// produce today, so that a change of input without `go generate` fails the suite. It sits in
// test/: the generated packages' own tests call it; nothing in the chain does.
package generated

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

// Check runs the `go tool` generate lines of doc.go in the test's package directory, in a copy
// of the module, and compares every zz_generated.* file they write, in that directory and below,
// with the committed one.
//
// The copy (go.mod, go.sum, hack/ and this directory's Go sources, without tests, testdata and
// generated files) keeps the module path and the directory's place in it, so that the generator
// sees the same import paths, and the committed tree is never written to.
func Check(t *testing.T) {
	t.Helper()
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	lines := regexp.MustCompile(`(?m)^//go:generate go (tool .*)$`).FindAllSubmatch(doc, -1)
	if len(lines) == 0 {
		t.Fatal("no `go tool` go:generate line in doc.go")
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	root := moduleRoot(t, wd)
	rel, err := filepath.Rel(root, wd)
	if err != nil {
		t.Fatal(err)
	}

	copyRoot := t.TempDir()
	for _, f := range []string{"go.mod", "go.sum", "hack"} {
		copyTree(t, filepath.Join(root, f), filepath.Join(copyRoot, f), nil)
	}
	copyTree(t, wd, filepath.Join(copyRoot, rel), func(path string) bool {
		return isGenerated(path) || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go")
	})

	for _, line := range lines {
		cmd := exec.Command("go", strings.Fields(string(line[1]))...)
		cmd.Dir = filepath.Join(copyRoot, rel)
		cmd.Env = append(os.Environ(), "GOWORK=off") // the copy is a module of its own
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s: %v\n%s", line[1], err, out)
		}
	}

	fresh := generatedFiles(t, filepath.Join(copyRoot, rel))
	committed := generatedFiles(t, wd)
	for name, content := range fresh {
		if old, ok := committed[name]; !ok || !bytes.Equal(old, content) {
			t.Errorf("%s is stale: run go generate in %s", filepath.Join(wd, name), wd)
		}
	}
	for name := range committed {
		if _, ok := fresh[name]; !ok {
			t.Errorf("%s is no longer generated: delete it", filepath.Join(wd, name))
		}
	}
}

func isGenerated(path string) bool { return strings.HasPrefix(filepath.Base(path), "zz_generated.") }

// generatedFiles maps the zz_generated.* files under dir, by path relative to dir, to their content.
func generatedFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !isGenerated(path) {
			return err
		}
		content, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		files[rel] = content
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// copyTree copies the file or directory src to dst, leaving out the files skip matches.
func copyTree(t *testing.T, src, dst string, skip func(string) bool) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		target := filepath.Join(dst, strings.TrimPrefix(path, src))
		if d.IsDir() && d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if skip != nil && skip(path) {
			return nil
		}
		content, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		return os.WriteFile(target, content, 0o644)
	})
	if err != nil {
		t.Fatalf("copying %s: %v", src, err)
	}
}

func moduleRoot(t *testing.T, dir string) string {
	t.Helper()
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			t.Fatalf("no go.mod above %s", dir)
		}
	}
}
