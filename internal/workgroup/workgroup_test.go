package workgroup

import (
	"sync/atomic"
	"testing"
)

// TestStopWaitsAndRefuses: Stop returns only after the work under way (Go and Run) has
// returned, and work offered after Stop does not run.
func TestStopWaitsAndRefuses(t *testing.T) {
	var g Group
	var finished atomic.Int32
	release := make(chan struct{})
	g.Go(func() { <-release; finished.Add(1) })
	running := make(chan struct{})
	go g.Run(func() { close(running); <-release; finished.Add(1) })
	<-running

	stopped := make(chan struct{})
	go func() { g.Stop(); close(stopped) }()
	select {
	case <-stopped:
		t.Fatal("Stop returned while work was under way")
	default:
	}
	close(release)
	<-stopped
	if n := finished.Load(); n != 2 {
		t.Fatalf("Stop returned with %d of 2 pieces of work finished", n)
	}

	ran := false
	g.Run(func() { ran = true })
	g.Go(func() { ran = true })
	g.Stop()
	if ran {
		t.Error("work offered after Stop ran")
	}
}
