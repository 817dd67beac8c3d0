// Package docs holds the walkthroughs. Its test keeps them true: it starts a chain, runs every
// command of every ```console block in the pages (lines starting with "$ "), and checks the
// output shown under it.
//
// In the expected output:
//   - runs of spaces match any run of spaces (kubectl aligns columns to their content);
//   - <...> or <anything in angle brackets> matches any text within the line (ages, names,
//     addresses, numbers: whatever varies);
//   - a line "..." matches any number of lines, including none;
//   - otherwise lines must appear as shown, in order; output after the last expected line is
//     allowed only where the block ends with "...".
//
// Blocks fenced as ```sh are shown, not run (they start the chain, for instance). Commands run
// with bash, KUBECONFIG set to the chain's admin kubeconfig, in the repository's root.
package docs

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apichain/apichain/servers/chain"
	"github.com/apichain/apichain/test/testchain"
)

// step is one command of a page and the output the page shows for it.
type step struct {
	page    string
	line    int
	command string
	want    []string
}

func TestPagesAreTrue(t *testing.T) {
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Skip("kubectl is not installed; the pages are kubectl sessions")
	}
	pages, _ := filepath.Glob("*.md")
	zh, _ := filepath.Glob("zh/*.md")
	pages = append(pages, zh...)
	var steps []step
	for _, p := range pages {
		steps = append(steps, parse(t, p)...)
	}
	if len(steps) == 0 {
		t.Fatal("no runnable blocks found")
	}
	c := testchain.Start(t, func(o *chain.Options) {
		o.Metrics = chain.MetricsInProcess
		o.MetricResolution = time.Second
		o.Nodes = 2
		o.Controllers = []string{"*"}
		o.RecordTraces = true // for `chain trace` (09-watch-a-request.md)
	})
	root, _ := filepath.Abs("..")
	// A page may start a server in the background (page 3b's aggregated API server); it stops
	// it itself, and what a failed page left running is stopped here.
	var groups []int
	defer func() {
		for _, pgid := range groups {
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
		}
	}()
	run := func(t *testing.T, dir, kubeconfig, command string) string {
		out, pgid := runCommand(t, dir, kubeconfig, command)
		if pgid > 0 && syscall.Kill(-pgid, 0) == nil {
			groups = append(groups, pgid)
		}
		return out
	}
	for _, s := range steps {
		t.Run(fmt.Sprintf("%s:%d", s.page, s.line), func(t *testing.T) {
			out := run(t, root, c.KubeconfigPath, s.command)
			// Things that become true a moment after start (metrics after two scrapes, pods
			// running) are retried until they match, for a while.
			deadline := time.Now().Add(90 * time.Second)
			for !match(s.want, out) && time.Now().Before(deadline) {
				time.Sleep(time.Second) // re-running a shell command: nothing to wait on
				out = run(t, root, c.KubeconfigPath, s.command)
			}
			if !match(s.want, out) {
				t.Errorf("%s:%d: $ %s\n--- got ---\n%s\n--- want ---\n%s", s.page, s.line, s.command, out, strings.Join(s.want, "\n"))
			}
		})
	}
}

// runCommand runs command with bash in a process group of its own, returned with the output:
// whatever the command left running in the background is in that group.
func runCommand(t *testing.T, dir, kubeconfig, command string) (string, int) {
	t.Helper()
	cmd := exec.Command("bash", "-c", command)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Dir = dir
	// TMPDIR: what the pages' commands make with mktemp goes where the test cleans up.
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig, "TMPDIR="+t.TempDir())
	out, _ := cmd.CombinedOutput() // the pages show failures too
	pgid := 0
	if cmd.Process != nil {
		pgid = cmd.Process.Pid
	}
	return strings.TrimRight(string(out), "\n"), pgid
}

// parse reads the ```console blocks of a page.
func parse(t *testing.T, page string) []step {
	t.Helper()
	f, err := os.Open(page)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var steps []step
	var cur *step
	inConsole, inOther := false, false
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		switch {
		case !inConsole && !inOther && strings.HasPrefix(trimmed, "```console"):
			inConsole = true
		case !inConsole && !inOther && strings.HasPrefix(trimmed, "```"):
			inOther = true
		case (inConsole || inOther) && trimmed == "```":
			if cur != nil {
				steps = append(steps, *cur)
				cur = nil
			}
			inConsole, inOther = false, false
		case inConsole && strings.HasPrefix(line, "$ "):
			if cur != nil {
				steps = append(steps, *cur)
			}
			cur = &step{page: page, line: n, command: strings.TrimPrefix(line, "$ ")}
		case inConsole && cur != nil:
			cur.want = append(cur.want, line)
		}
	}
	return steps
}

var (
	placeholder = regexp.MustCompile(`<[^<>]*>`)
	spaces      = regexp.MustCompile(` +`)
)

// match reports whether got shows the lines of want, as the package doc describes.
func match(want []string, got string) bool {
	lines := strings.Split(got, "\n")
	if got == "" {
		lines = nil
	}
	return matchFrom(want, lines)
}

func matchFrom(want, got []string) bool {
	if len(want) == 0 {
		return len(got) == 0
	}
	if strings.TrimSpace(want[0]) == "..." {
		for i := 0; i <= len(got); i++ {
			if matchFrom(want[1:], got[i:]) {
				return true
			}
		}
		return false
	}
	if len(got) == 0 || !lineRegexp(want[0]).MatchString(got[0]) {
		return false
	}
	return matchFrom(want[1:], got[1:])
}

func lineRegexp(want string) *regexp.Regexp {
	var b bytes.Buffer
	b.WriteString("^")
	rest := strings.TrimRight(want, " ")
	for rest != "" {
		loc := placeholder.FindStringIndex(rest)
		literal := rest
		if loc != nil {
			literal = rest[:loc[0]]
		}
		for i, part := range spaces.Split(literal, -1) {
			if i > 0 {
				b.WriteString(`\s+`)
			}
			b.WriteString(regexp.QuoteMeta(part))
		}
		if loc == nil {
			break
		}
		b.WriteString(`.+?`)
		rest = rest[loc[1]:]
	}
	b.WriteString(`\s*$`)
	return regexp.MustCompile(b.String())
}
