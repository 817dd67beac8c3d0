package chaintest_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"

	"k8s.io/klog/v2"

	"github.com/apichain/apichain/chaintest"
)

// klogLine is the header of a klog text line: severity, date, time.
var klogLine = regexp.MustCompile(`(?m)^[IWEF]\d{4} \d\d:\d\d:\d\d`)

// TestQuietUnlessAttached: while Environments run, klog (process-wide) prints nothing, unless
// one of them attaches its output; when the last one stops, klog prints as before. Two
// Environments overlap: a quiet one, then an attached one.
func TestQuietUnlessAttached(t *testing.T) {
	stderr := captureStderr(t)
	quiet := &chaintest.Environment{}
	if _, err := quiet.Start(); err != nil {
		t.Fatal(err)
	}
	klog.InfoS("marker-1, while a quiet environment runs")

	fmt.Fprintln(os.Stderr, "== attached starts")
	attached := &chaintest.Environment{AttachControlPlaneOutput: true}
	if _, err := attached.Start(); err != nil {
		t.Fatal(err)
	}
	klog.InfoS("marker-2, while an attached environment runs")
	if err := attached.Stop(); err != nil {
		t.Error(err)
	}
	fmt.Fprintln(os.Stderr, "== attached stopped")
	klog.InfoS("marker-3, while the quiet environment runs again")

	if err := quiet.Stop(); err != nil {
		t.Error(err)
	}
	klog.InfoS("marker-4, after the last environment stopped")
	out := stderr()

	before, rest, _ := strings.Cut(out, "== attached starts\n")
	during, after, _ := strings.Cut(rest, "== attached stopped\n")
	if before != "" {
		t.Errorf("a quiet environment printed on stderr:\n%s", before)
	}
	if !klogLine.MatchString(during) || !strings.Contains(during, "marker-2") {
		t.Errorf("an attached environment: want the libraries' klog lines on stderr, got:\n%s", during)
	}
	if strings.Contains(after, "marker-3") || !strings.Contains(after, "marker-4") {
		t.Errorf("after the attached environment: want marker-4 only, got:\n%s", after)
	}
}

// captureStderr points os.Stderr, where klog writes, at a pipe; the func it returns points it
// back and returns what was written. The test must not be parallel.
func captureStderr(t *testing.T) (stop func() string) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stderr
	os.Stderr = w
	var buf bytes.Buffer
	copied := make(chan struct{})
	go func() { defer close(copied); _, _ = io.Copy(&buf, r) }()
	var once sync.Once
	stop = func() string {
		once.Do(func() {
			klog.Flush()
			os.Stderr = saved
			w.Close()
			<-copied
			r.Close()
		})
		return buf.String()
	}
	t.Cleanup(func() { stop() })
	return stop
}
