package chain

import (
	"runtime/debug"
	"sync"
	"time"
)

// startGCPercent is the garbage collector's target while a chain starts. Start-up allocates
// fast and keeps most of it (the OpenAPI specs, discovery, the first lists of every informer):
// at the default of 100 the heap doubles many times on the way and the collector runs each
// time, about a fifth of the start's CPU. A higher target while starting saves most of that;
// the default comes back once the chain is ready (settleGC).
const startGCPercent = 400

var startingGC struct {
	sync.Mutex
	starting  int  // chains starting in this process now
	unsettled bool // a start has ended since settleGC last ran
	relaxed   bool // startGCPercent is set, and previous is to be restored
	previous  int  // the target to restore
}

// settleAfter is how long after the last start of a burst settleGC runs. Not at once: a full
// collection of the whole process then competes with what comes right after a start (a test
// that stops its Environment at once took ~55 ms to stop instead of ~30), and when another
// chain starts meanwhile (a suite's tests, one Environment each) the target stays raised for
// that start too, and the process settles once, after the last.
const settleAfter = time.Second

// relaxGC raises the GC target for a chain's start. The returned func says the start is over
// (ready or failed); once no chain of the process is starting, settleGC runs settleAfter later.
// A target already higher (or GC off) is left alone.
func relaxGC() (done func()) {
	startingGC.Lock()
	defer startingGC.Unlock()
	if !startingGC.relaxed {
		previous := debug.SetGCPercent(startGCPercent)
		if previous < 0 || previous >= startGCPercent {
			debug.SetGCPercent(previous)
		} else {
			startingGC.relaxed, startingGC.previous = true, previous
		}
	}
	startingGC.starting++
	return sync.OnceFunc(func() {
		startingGC.Lock()
		startingGC.starting--
		last := startingGC.starting == 0
		if last {
			startingGC.unsettled = true
		}
		startingGC.Unlock()
		if last {
			time.AfterFunc(settleAfter, settleGC)
		}
	})
}

// settleGC returns what start-up left to the OS and then restores the process's GC target (if
// relaxGC raised it: a process that runs at a higher target or without collection keeps it).
// Start-up builds a lot that is garbage once a chain serves (the OpenAPI specs of every group,
// merged and marshalled; discovery documents; the first lists of every informer). Left alone,
// the Go runtime keeps that memory for minutes before it returns it; FreeOSMemory gives it back
// at once, with one full collection. In that order: the target restored first would find the
// heap far past its goal and start a collection at once, whose assists slow every allocating
// goroutine, and FreeOSMemory would then make a second. Where several chains start side by side
// or one after another in one process (tests), it runs once, after the last of them is ready:
// not while another chain is starting (that one's start ends with it).
func settleGC() {
	startingGC.Lock()
	due := startingGC.starting == 0 && startingGC.unsettled
	if due {
		startingGC.unsettled = false
	}
	startingGC.Unlock()
	if !due {
		return
	}
	debug.FreeOSMemory()
	startingGC.Lock()
	defer startingGC.Unlock()
	if startingGC.starting == 0 && startingGC.relaxed {
		debug.SetGCPercent(startingGC.previous)
		startingGC.relaxed = false
	}
}
