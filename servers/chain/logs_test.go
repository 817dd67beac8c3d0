package chain

import (
	"bytes"
	"testing"
)

// TestLogRouting: info lines go to the file (and the terminal from -v=1), warnings and errors
// to both until a stop is asked for, then to the file only; a fatal line always reaches the
// terminal, and a warning every healthy start logs is written as info.
func TestLogRouting(t *testing.T) {
	lines := []string{
		"I1206 info line\n",
		"W1206 a warning\n",
		"E1206 an error\n",
		"W1206 Skipping API x/v1beta1 because it has no resources.\n",
	}
	for _, c := range []struct {
		verbose, stopping bool
		terminal          string
	}{
		{false, false, "W1206 a warning\nE1206 an error\n"},
		{true, false, "I1206 info line\nW1206 a warning\nE1206 an error\nI1206 Skipping API x/v1beta1 because it has no resources.\n"},
		{false, true, ""},
		{true, true, "I1206 info line\nI1206 Skipping API x/v1beta1 because it has no resources.\n"},
	} {
		var file, terminal bytes.Buffer
		w := &bySeverity{file: &file, terminal: &terminal, verbose: c.verbose}
		if c.stopping {
			w.stopAsked()
		}
		for _, l := range lines {
			if n, err := w.Write([]byte(l)); err != nil || n != len(l) {
				t.Fatalf("Write(%q) = %d, %v", l, n, err)
			}
		}
		wantFile := "I1206 info line\nW1206 a warning\nE1206 an error\nI1206 Skipping API x/v1beta1 because it has no resources.\n"
		if file.String() != wantFile {
			t.Errorf("verbose=%v stopping=%v: the file holds\n%s\nwant\n%s", c.verbose, c.stopping, file.String(), wantFile)
		}
		if terminal.String() != c.terminal {
			t.Errorf("verbose=%v stopping=%v: the terminal shows\n%q\nwant\n%q", c.verbose, c.stopping, terminal.String(), c.terminal)
		}
		terminal.Reset()
		if _, err := w.Write([]byte("F1206 fatal\n")); err != nil || terminal.String() != "F1206 fatal\n" {
			t.Errorf("verbose=%v stopping=%v: a fatal line shows %q on the terminal", c.verbose, c.stopping, terminal.String())
		}
	}
}
