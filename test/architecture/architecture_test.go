// Package architecture_test holds the layers of the README's picture against the code: it lists
// every package of the module with `go list` and checks that no package depends on one it must
// not (directly or through others). The rules are the table below; a broken rule fails the test
// with the chain of imports that breaks it.
//
// Only product code counts (what `go build` compiles): a _test.go file may import anything,
// as test/ may.
package architecture_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// module is the module's path; the rules name packages relative to it.
const module = "github.com/apichain/apichain"

// A rule says that the packages From may not depend on the packages To, unless they are among
// Except. A pattern is a package path relative to the module; "x/..." is x and every package
// below it. A pattern that matches no package (a folder still to come) matches nothing.
type rule struct {
	From, To, Except []string
	Why              string
}

var (
	servers      = []string{"servers/aggregator/...", "servers/core/...", "servers/extensions/...", "servers/metrics/..."}
	aboveServers = []string{"servers/chain/...", "controllers/...", "kubelet/...", "chaintest/...", "commands/...", "cmd/...", "test/..."}
	everything   = []string{"..."}
)

var rules = []rule{
	{From: []string{"servers/extensions/..."}, To: []string{"servers/core/...", "servers/aggregator/..."},
		Why: "ApiExtensions is the innermost server: it knows nothing of the servers in front of it"},
	{From: []string{"servers/core/..."}, To: []string{"servers/aggregator/..."},
		Why: "Core sits behind the Aggregator and knows nothing of it"},
	{From: servers, To: []string{"servers/chain/..."},
		Why: "the composition root builds the servers, never the other way round"},
	{From: everything, To: []string{"servers/chain"}, Except: []string{"servers/chain/...", "chaintest/...", "commands/...", "cmd/...", "test/..."},
		Why: "only the command line, the test API and tests sit above the composition root"},
	{From: []string{"servers/chain/..."}, To: []string{"chaintest/...", "commands/...", "cmd/..."},
		Why: "the composition root sits below its command line and its test API"},
	{From: []string{"internal/..."}, To: append(slices.Clone(servers), aboveServers...),
		Why: "internal/ holds the product's libraries, at the bottom: it imports no part of the chain"},
	{From: everything, To: []string{"test/..."}, Except: []string{"test/..."},
		Why: "test/ is what only tests use: product code never imports it (a _test.go file may)"},
	{From: []string{"servers/metrics/..."}, To: []string{"servers/aggregator/...", "servers/core/...", "servers/extensions/...", "servers/chain/...", "controllers/...", "kubelet/..."},
		Why: "the metrics server reaches the chain only over HTTP, through client-go"},
	{From: []string{"controllers/...", "kubelet/..."}, To: []string{"servers/..."},
		Why: "controllers and kubelets talk to the chain only through client-go, never through its storage"},
}

// pkg is what `go list` says of a package: its path and its dependencies, direct (Imports) and
// all (Deps), both of the product code only.
type pkg struct {
	ImportPath    string
	Imports, Deps []string
	// Error is why go list could not read the package; then its imports are not all known.
	Error *struct{ Err string }
}

func TestImportRules(t *testing.T) {
	pkgs := listPackages(t)
	// A guard against a listing that went wrong and would make every rule pass.
	for _, want := range []string{"servers/chain", "servers/core", "internal/pki", "chaintest", "test/testchain"} {
		if _, ok := pkgs[want]; !ok {
			t.Fatalf("go list did not list %s (listed %d packages)", want, len(pkgs))
		}
	}
	for _, v := range check(rules, pkgs) {
		t.Error(v)
	}
}

// TestRulesCatchABadImport: in a made-up graph internal/kubeconfig imports Core, and
// internal/pki imports internal/kubeconfig. That breaks the rule of internal/ once, where the
// import is; the real graph is not needed to show that the check can fail.
func TestRulesCatchABadImport(t *testing.T) {
	pkgs := map[string]pkg{
		"internal/pki":        {Imports: []string{"internal/kubeconfig"}, Deps: []string{"internal/kubeconfig", "servers/core"}},
		"internal/kubeconfig": {Imports: []string{"servers/core"}, Deps: []string{"servers/core"}},
		"servers/core":        {},
	}
	got := check(rules, pkgs)
	want := "internal/kubeconfig depends on servers/core (internal/kubeconfig → servers/core): internal/ holds"
	if len(got) != 1 || !strings.HasPrefix(got[0], want) {
		t.Errorf("violations:\n%s\nwant one line, starting %q", strings.Join(got, "\n"), want)
	}
}

// check returns one line per package and dependency that breaks a rule. A package that breaks
// it only by importing another that breaks it is not named again: the line is where the
// offending import is.
func check(rules []rule, pkgs map[string]pkg) []string {
	var out []string
	for _, name := range slices.Sorted(maps.Keys(pkgs)) {
		for _, r := range rules {
			if !r.applies(name) {
				continue
			}
			for _, dep := range pkgs[name].Deps {
				if !matchAny(r.To, dep) || inherited(r, pkgs, name, dep) {
					continue
				}
				out = append(out, fmt.Sprintf("%s depends on %s (%s): %s", name, dep, strings.Join(importChain(pkgs, name, dep), " → "), r.Why))
			}
		}
	}
	return out
}

func (r rule) applies(name string) bool { return matchAny(r.From, name) && !matchAny(r.Except, name) }

// inherited says whether name depends on dep only as one of its imports does that breaks the
// same rule.
func inherited(r rule, pkgs map[string]pkg, name, dep string) bool {
	for _, imp := range pkgs[name].Imports {
		if imp != dep && r.applies(imp) && slices.Contains(pkgs[imp].Deps, dep) {
			return true
		}
	}
	return false
}

// importChain is a shortest chain of direct imports from one package to another.
func importChain(pkgs map[string]pkg, from, to string) []string {
	prev := map[string]string{from: ""}
	for queue := []string{from}; len(queue) > 0; queue = queue[1:] {
		for _, next := range pkgs[queue[0]].Imports {
			if _, seen := prev[next]; seen {
				continue
			}
			prev[next] = queue[0]
			if next == to {
				var chain []string
				for p := to; p != ""; p = prev[p] {
					chain = append([]string{p}, chain...)
				}
				return chain
			}
			queue = append(queue, next)
		}
	}
	return []string{from, "…", to}
}

func matchAny(patterns []string, name string) bool {
	for _, p := range patterns {
		if p == "..." || p == name {
			return true
		}
		if base, ok := strings.CutSuffix(p, "/..."); ok && (name == base || strings.HasPrefix(name, base+"/")) {
			return true
		}
	}
	return false
}

// listPackages runs `go list -json ./...` at the module's root and returns every package, named
// relative to the module, with the module's own packages among its dependencies.
func listPackages(t *testing.T) map[string]pkg {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "list", "-json=ImportPath,Imports,Deps,Error", "./...")
	cmd.Dir = root
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pkgs := map[string]pkg{}
	dec := json.NewDecoder(out)
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("reading go list's output: %v", err)
		}
		if p.Error != nil {
			t.Errorf("go list: %s: %s", p.ImportPath, p.Error.Err)
		}
		p.ImportPath = relative(p.ImportPath)
		p.Imports, p.Deps = ownOnly(p.Imports), ownOnly(p.Deps)
		pkgs[p.ImportPath] = p
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	return pkgs
}

// ownOnly keeps the module's packages, relative to it.
func ownOnly(paths []string) []string {
	var own []string
	for _, p := range paths {
		if p == module || strings.HasPrefix(p, module+"/") {
			own = append(own, relative(p))
		}
	}
	return own
}

func relative(path string) string {
	return strings.TrimPrefix(strings.TrimPrefix(path, module), "/")
}
