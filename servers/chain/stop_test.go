package chain

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestStopStepsRunSideBySide: each of two steps waits for the other to have begun, which only
// steps that run at the same time can do. Run one after another, the first would wait in vain
// (and give up after a while, which fails the test rather than hanging it).
func TestStopStepsRunSideBySide(t *testing.T) {
	var stopping stopSteps
	began := map[string]chan struct{}{"a": make(chan struct{}), "b": make(chan struct{})}
	waitFor := func(self, other string) func() error {
		return func() error {
			close(began[self])
			select {
			case <-began[other]:
				return nil
			case <-time.After(10 * time.Second):
				return errors.New("the other step never began: the steps run one after another")
			}
		}
	}
	stopping.add("a", waitFor("a", "b"))
	stopping.add("b", waitFor("b", "a"))
	if err := stopping.run(); err != nil {
		t.Fatal(err)
	}
}

// TestStopStepsErrors: a failing step does not keep the others from running, and the hook's
// error names every step that failed.
func TestStopStepsErrors(t *testing.T) {
	var stopping stopSteps
	lease, handover := errors.New("lease not deleted"), errors.New("lease not handed over")
	ran := make(chan string, 3)
	stopping.add("identity-lease", func() error { ran <- "identity-lease"; return lease })
	stopping.add("addons", func() error { ran <- "addons"; return nil })
	stopping.add("controllers", func() error { ran <- "controllers"; return handover })

	err := stopping.run()
	if len(ran) != 3 {
		t.Errorf("%d of the 3 steps ran", len(ran))
	}
	if !errors.Is(err, lease) || !errors.Is(err, handover) {
		t.Fatalf("error %v, want both steps' errors", err)
	}
	for _, want := range []string{"identity-lease: lease not deleted", "controllers: lease not handed over"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "addons") {
		t.Errorf("error %q names a step that did not fail", err)
	}

	var none stopSteps
	if err := none.run(); err != nil {
		t.Errorf("no steps: %v", err)
	}
}
