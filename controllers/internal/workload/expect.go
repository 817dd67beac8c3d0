package workload

import (
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
)

// Expectations remembers, per owner, the pods its controller created or deleted that the pod
// informer has not shown yet. Until it has, the cache undercounts (or overcounts) the owner's
// pods, and a sync that trusted it would create (or delete) them a second time: kube's
// controllers call this "expectations", and so do we.
type Expectations struct {
	mu     sync.Mutex
	byKey  map[string]*pending
	maxAge time.Duration
}

type pending struct {
	creations int
	deletions sets.Set[types.UID]
	since     time.Time
}

// expectationsTimeout is how long writes may stay unseen before a sync acts anyway (a watch
// event lost for good, a pod created and deleted before the informer listed it): kube's 5 min.
const expectationsTimeout = 5 * time.Minute

// NewExpectations returns empty expectations.
func NewExpectations() *Expectations {
	return &Expectations{byKey: map[string]*pending{}, maxAge: expectationsTimeout}
}

// Expect records that key's controller is about to create n pods and delete those with uids.
// Call it before the writes, so that no event can come before it.
func (e *Expectations) Expect(key string, n int, uids ...types.UID) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.byKey[key] = &pending{creations: n, deletions: sets.New(uids...), since: time.Now()}
}

// Created counts n of key's creations as done: seen by the informer, failed, or not tried.
func (e *Expectations) Created(key string, n int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if p := e.byKey[key]; p != nil {
		p.creations -= n
	}
}

// Deleted counts the deletion of the pod uid as done.
func (e *Expectations) Deleted(key string, uid types.UID) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if p := e.byKey[key]; p != nil {
		p.deletions.Delete(uid)
	}
}

// Satisfied reports whether the informer has shown all of key's writes, or they are too old
// to wait for.
func (e *Expectations) Satisfied(key string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	p := e.byKey[key]
	return p == nil || (p.creations <= 0 && p.deletions.Len() == 0) || time.Since(p.since) > e.maxAge
}

// Forget drops what key's controller expected, when its owner is gone.
func (e *Expectations) Forget(key string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.byKey, key)
}
