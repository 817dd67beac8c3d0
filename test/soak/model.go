package soak

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Key names one object the workload writes.
type Key struct{ Resource, Namespace, Name string }

func (k Key) String() string { return k.Resource + "/" + k.Namespace + "/" + k.Name }

// State is what the workload knows of one object after a write: whether it exists, the number
// of the write that made it so (every write stamps its number in the annotation seqAnnotation),
// and the resourceVersion the chain answered with.
type State struct {
	Exists bool
	Seq    int64
	RV     string
}

// seqAnnotation carries the number of the write that last changed an object: what is stored can
// be held against what was acknowledged, whoever else (a controller) writes to its status.
const seqAnnotation = "soak.apichain.io/seq"

// soakLabel marks every object the workload makes, to list them all.
const soakLabel = "soak.apichain.io/object"

// entry is one object: its acknowledged state, and the state a write in flight would give it.
// A write whose answer was lost (the chain killed under it, a cut connection) stays in flight
// until the object is read again: then either state is correct.
type entry struct {
	acked    State
	inflight *State
}

// Model is what the chain acknowledged, object by object. Each object is written by one
// worker at a time, so that its writes are ordered.
type Model struct {
	// sole says which resources only the workload writes: for them the resourceVersion too must
	// be the acknowledged one (a Deployment's status is the controller's to change).
	sole map[string]bool

	mu      sync.Mutex
	entries map[Key]*entry
	// acked counts acknowledged writes; resolved the writes whose outcome was learnt later.
	acked, resolved int
}

// NewModel returns an empty model; sole lists the resources nobody but the workload writes.
func NewModel(sole ...string) *Model {
	m := &Model{sole: map[string]bool{}, entries: map[Key]*entry{}}
	for _, r := range sole {
		m.sole[r] = true
	}
	return m
}

func (m *Model) get(k Key) *entry {
	e := m.entries[k]
	if e == nil {
		e = &entry{}
		m.entries[k] = e
	}
	return e
}

// Current is k's acknowledged state, and whether a write of unknown outcome is pending on it
// (the worker must not write it again before that is resolved).
func (m *Model) Current(k Key) (State, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.get(k)
	return e.acked, e.inflight != nil
}

// Begin records that a write giving k the state next is being sent.
func (m *Model) Begin(k Key, next State) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.get(k).inflight = &next
}

// Ack records that the chain acknowledged the write: k now has state s.
func (m *Model) Ack(k Key, s State) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.get(k)
	e.acked, e.inflight = s, nil
	m.acked++
}

// Refused records that the chain answered the write with an error: nothing changed.
func (m *Model) Refused(k Key) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.get(k).inflight = nil
}

// Observed is an object as read back from the chain.
type Observed struct {
	Seq int64
	RV  string
}

// ObservedOf reads the write number and resourceVersion of a stored object.
func ObservedOf(u *unstructured.Unstructured) Observed {
	seq, _ := strconv.ParseInt(u.GetAnnotations()[seqAnnotation], 10, 64)
	return Observed{Seq: seq, RV: u.GetResourceVersion()}
}

// Resolve holds what was read of k (nil: not found) against its states, adopts it if it is
// one of them, and returns a problem otherwise.
func (m *Model) Resolve(k Key, got *Observed) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.get(k)
	if matches(e.acked, got, m.sole[k.Resource]) {
		e.inflight = nil
		return ""
	}
	if e.inflight != nil && matches(*e.inflight, got, false) {
		s := *e.inflight
		if got != nil {
			s.RV = got.RV
		}
		e.acked, e.inflight = s, nil
		m.resolved++
		return ""
	}
	pending := ""
	if e.inflight != nil {
		pending = " (a write of unknown outcome was pending: " + describeInflight(e.inflight) + ")"
	}
	return fmt.Sprintf("%s: stored %s, acknowledged %s%s", k, describe(got), describeState(e.acked), pending)
}

// matches says whether got is state s; the resourceVersion counts only if exact.
func matches(s State, got *Observed, exact bool) bool {
	if got == nil || !s.Exists {
		return (got == nil) == !s.Exists
	}
	return got.Seq == s.Seq && (!exact || got.RV == s.RV)
}

// Verify holds every object listed from the chain (stored, by key, of the given resources)
// against the model: an acknowledged write missing, an object changed by nobody, one that
// should not exist. Writes of unknown outcome are resolved to what is stored. It returns the
// problems and how many objects it compared.
func (m *Model) Verify(resources []string, stored map[Key]Observed) ([]string, int) {
	m.mu.Lock()
	var keys []Key
	for k := range m.entries {
		if slices.Contains(resources, k.Resource) {
			keys = append(keys, k)
		}
	}
	m.mu.Unlock()
	var problems []string
	seen := map[Key]bool{}
	for _, k := range keys {
		seen[k] = true
		var got *Observed
		if o, ok := stored[k]; ok {
			got = &o
		}
		if p := m.Resolve(k, got); p != "" {
			problems = append(problems, p)
		}
	}
	for _, k := range slices.SortedFunc(maps.Keys(stored), cmpKey) {
		if !seen[k] {
			o := stored[k]
			problems = append(problems, fmt.Sprintf("%s: stored %s, never written", k, describe(&o)))
		}
	}
	slices.Sort(problems)
	return problems, len(keys)
}

// Counts are the model's totals.
func (m *Model) Counts() (acked, resolved, objects int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, e := range m.entries {
		if e.acked.Exists {
			objects++
		}
	}
	return m.acked, m.resolved, objects
}

func cmpKey(a, b Key) int {
	return cmp.Or(cmp.Compare(a.Resource, b.Resource), cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
}

func describe(o *Observed) string {
	if o == nil {
		return "nothing"
	}
	return fmt.Sprintf("write %d (rv %s)", o.Seq, o.RV)
}

func describeState(s State) string {
	if !s.Exists {
		return "deleted or never created"
	}
	return fmt.Sprintf("write %d (rv %s)", s.Seq, s.RV)
}

func describeInflight(s *State) string {
	if !s.Exists {
		return "a delete"
	}
	return fmt.Sprintf("write %d", s.Seq)
}
