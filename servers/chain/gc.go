package chain

import (
	"runtime/debug"
	"sync"
)

// startGCPercent is the garbage collector's target while a chain starts. Start-up allocates
// fast and keeps most of it (the OpenAPI specs, discovery, the first lists of every informer):
// at the default of 100 the heap doubles many times on the way and the collector runs each
// time, about a fifth of the start's CPU. A higher target while starting saves most of that;
// the default comes back once the chain is ready (and FreeOSMemory returns what start-up left).
const startGCPercent = 400

var startingGC struct {
	sync.Mutex
	starting int // chains starting in this process now
	previous int // the target to restore when none is
}

// relaxGC raises the GC target for a chain's start; the returned func restores it once no
// chain of the process is starting. A target already higher (or GC off) is left alone.
func relaxGC() (restore func()) {
	startingGC.Lock()
	defer startingGC.Unlock()
	if startingGC.starting == 0 {
		startingGC.previous = debug.SetGCPercent(startGCPercent)
		if startingGC.previous < 0 || startingGC.previous >= startGCPercent {
			debug.SetGCPercent(startingGC.previous)
		}
	}
	startingGC.starting++
	return sync.OnceFunc(func() {
		startingGC.Lock()
		defer startingGC.Unlock()
		startingGC.starting--
		if startingGC.starting == 0 {
			debug.SetGCPercent(startingGC.previous)
		}
	})
}
