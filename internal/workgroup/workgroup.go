// Package workgroup counts work that a stop must wait for, and refuses work that comes after
// the stop: a sync.WaitGroup whose Add may race with Wait. The metrics server counts its hooks'
// goroutines with one, the controllers' event writer its writes.
package workgroup

import "sync"

// Group is work counted until Stop; its zero value is ready.
type Group struct {
	mu      sync.Mutex
	stopped bool
	wg      sync.WaitGroup
}

// enter counts one more piece of work, unless the group has stopped.
func (g *Group) enter() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.stopped {
		return false
	}
	g.wg.Add(1)
	return true
}

// Go runs fn in a goroutine that Stop waits for, unless the group has stopped.
func (g *Group) Go(fn func()) {
	if !g.enter() {
		return
	}
	go func() {
		defer g.wg.Done()
		fn()
	}()
}

// Run runs fn in the calling goroutine, counted as work, unless the group has stopped.
func (g *Group) Run(fn func()) {
	if !g.enter() {
		return
	}
	defer g.wg.Done()
	fn()
}

// Stop refuses work from now on and returns once the work counted has returned.
func (g *Group) Stop() {
	g.mu.Lock()
	g.stopped = true
	g.mu.Unlock()
	g.wg.Wait()
}
