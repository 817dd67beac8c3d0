package soak

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"strconv"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
)

// View is what a watcher has made of the events it received: every object it holds, by
// namespace/name, with its resourceVersion, and the resourceVersion it is at (its last event
// or bookmark).
type View struct {
	Objects map[string]uint64
	RV      uint64
}

// Watcher is one of the soak's watchers, of either kind: a raw watch (RawWatcher) or a client-go
// informer (InformerWatcher).
type Watcher interface {
	Name() string
	// Target is what it watches: the resource, its namespace ("" for all) and its selectors.
	Target() Target
	// View is a copy of what it has seen.
	View() View
	// Cutter cuts its connections.
	Cutter() *Cutter
	// Stats are its counts and the problems it found in the events themselves.
	Stats() WatcherStats
	Run(ctx context.Context)
}

// Target is what a watcher watches.
type Target struct {
	GVR                          schema.GroupVersionResource
	Namespace                    string
	LabelSelector, FieldSelector string
}

// Options are the list options that select the target's objects.
func (t Target) Options() metav1.ListOptions {
	return metav1.ListOptions{LabelSelector: t.LabelSelector, FieldSelector: t.FieldSelector}
}

// Client is dyn's client of the target's resource in its namespace.
func (t Target) Client(dyn dynamic.Interface) dynamic.ResourceInterface {
	if t.Namespace == "" {
		return dyn.Resource(t.GVR)
	}
	return dyn.Resource(t.GVR).Namespace(t.Namespace)
}

func (t Target) String() string {
	s := t.GVR.Resource
	if t.Namespace != "" {
		s += " in " + t.Namespace
	}
	if t.LabelSelector != "" {
		s += " -l " + t.LabelSelector
	}
	if t.FieldSelector != "" {
		s += " --field-selector " + t.FieldSelector
	}
	return s
}

// WatcherStats are a watcher's counts.
type WatcherStats struct {
	Events, Bookmarks int
	// Rewatches counts watches that ended and were resumed from the last resourceVersion;
	// Relists the lists made anew after 410 Gone (the first list not counted).
	Rewatches, Relists int
	// Problems are events that break the watch's promises: a resourceVersion not above the last,
	// an object added twice, a change of an object never added.
	Problems []string
}

// RawWatcher is a watch as a hand-written client makes it, as client-go's reflector does: list,
// then watch from the list's resourceVersion; resume from the last resourceVersion seen when
// the watch ends; list again on 410 Gone. It checks each event as it comes.
type RawWatcher struct {
	name      string
	client    dynamic.ResourceInterface
	target    Target
	bookmarks bool
	// streaming starts with a watch that sends the initial state as events (the watch-list
	// protocol: sendInitialEvents, ended by a bookmark) instead of a list.
	streaming bool
	cutter    *Cutter

	seen
}

// seen is what a watcher of either kind has made of its events so far, behind its lock.
type seen struct {
	mu    sync.Mutex
	view  View
	stats WatcherStats
}

// View is a copy of what the watcher holds.
func (s *seen) View() View {
	s.mu.Lock()
	defer s.mu.Unlock()
	return View{Objects: maps.Clone(s.view.Objects), RV: s.view.RV}
}

// Stats is a copy of the watcher's counts and problems.
func (s *seen) Stats() WatcherStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.stats
	st.Problems = append([]string(nil), st.Problems...)
	return st
}

// NewRawWatcher returns a raw watcher of target through client (which dials through cutter).
func NewRawWatcher(name string, client dynamic.ResourceInterface, target Target, bookmarks, streaming bool, cutter *Cutter) *RawWatcher {
	return &RawWatcher{name: name, client: client, target: target, bookmarks: bookmarks || streaming, streaming: streaming, cutter: cutter}
}

func (w *RawWatcher) Name() string    { return w.name }
func (w *RawWatcher) Target() Target  { return w.target }
func (w *RawWatcher) Cutter() *Cutter { return w.cutter }

func (w *RawWatcher) problem(format string, args ...any) {
	w.stats.Problems = append(w.stats.Problems, fmt.Sprintf(format, args...))
}

// Run watches until ctx is done. Failures to reach the chain (it is being restarted) are
// retried every second.
func (w *RawWatcher) Run(ctx context.Context) {
	first := true
	for ctx.Err() == nil {
		var err error
		if w.streaming {
			err = w.streamInitial(ctx)
		} else {
			err = w.list(ctx)
		}
		if err != nil {
			sleep(ctx, time.Second)
			continue
		}
		if !first {
			w.mu.Lock()
			w.stats.Relists++
			w.mu.Unlock()
		}
		first = false
		w.watchUntilGone(ctx)
	}
}

func (w *RawWatcher) options() metav1.ListOptions { return w.target.Options() }

// list replaces the view with a fresh list, page by page.
func (w *RawWatcher) list(ctx context.Context) error {
	objects, rv, err := listAll(ctx, w.client, w.options(), "", "")
	if err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.view = View{Objects: objects, RV: rv}
	return nil
}

// streamInitial replaces the view with the initial events of a watch-list request.
func (w *RawWatcher) streamInitial(ctx context.Context) error {
	opts := w.options()
	yes := true
	opts.SendInitialEvents = &yes
	opts.ResourceVersionMatch = metav1.ResourceVersionMatchNotOlderThan
	opts.AllowWatchBookmarks = true
	wi, err := w.client.Watch(ctx, opts)
	if err != nil {
		return err
	}
	defer wi.Stop()
	view := View{Objects: map[string]uint64{}}
	for ev := range wi.ResultChan() {
		switch ev.Type {
		case watch.Added:
			key, rv, err := keyAndRV(ev.Object)
			if err != nil {
				return err
			}
			if _, dup := view.Objects[key]; dup {
				w.mu.Lock()
				w.problem("initial events: %s sent twice", key)
				w.mu.Unlock()
			}
			view.Objects[key] = rv
		case watch.Bookmark:
			_, rv, err := keyAndRV(ev.Object)
			if err != nil {
				return err
			}
			m, _ := meta.Accessor(ev.Object)
			if m.GetAnnotations()[metav1.InitialEventsAnnotationKey] == "true" {
				view.RV = rv
				w.mu.Lock()
				w.view = view
				w.mu.Unlock()
				return nil
			}
		case watch.Error:
			return apierrors.FromObject(ev.Object)
		default:
			return fmt.Errorf("initial events: unexpected %s event", ev.Type)
		}
	}
	return errors.New("the watch ended before its initial events did")
}

// watchUntilGone watches from the view's resourceVersion, again and again as each watch ends,
// until the chain answers 410 Gone (the view is too old: list again) or ctx is done.
func (w *RawWatcher) watchUntilGone(ctx context.Context) {
	for ctx.Err() == nil {
		opts := w.options()
		opts.AllowWatchBookmarks = w.bookmarks
		w.mu.Lock()
		opts.ResourceVersion = strconv.FormatUint(w.view.RV, 10)
		w.mu.Unlock()
		wi, err := w.client.Watch(ctx, opts)
		if apierrors.IsResourceExpired(err) || apierrors.IsGone(err) {
			return
		}
		if err != nil {
			sleep(ctx, time.Second)
			continue
		}
		gone, failed := w.consume(wi)
		wi.Stop()
		if gone {
			return
		}
		if failed {
			sleep(ctx, 200*time.Millisecond) // an error (the chain not caught up yet): not at once
		}
		w.mu.Lock()
		w.stats.Rewatches++
		w.mu.Unlock()
	}
}

// consume applies a watch's events to the view, checking each, until the watch ends; it says
// whether it ended with 410 Gone, or with another error.
func (w *RawWatcher) consume(wi watch.Interface) (gone, failed bool) {
	for ev := range wi.ResultChan() {
		if ev.Type == watch.Error {
			status := apierrors.FromObject(ev.Object)
			// Anything else (a stream broken under the client, reported by client-go as a
			// decoding error) ends the watch: resume it.
			gone := apierrors.IsResourceExpired(status) || apierrors.IsGone(status) || statusCode(status) == http.StatusGone
			return gone, !gone
		}
		key, rv, err := keyAndRV(ev.Object)
		w.mu.Lock()
		if err != nil {
			w.problem("%s event: %v", ev.Type, err)
			w.mu.Unlock()
			continue
		}
		last := w.view.RV
		old, had := w.view.Objects[key]
		switch ev.Type {
		case watch.Bookmark:
			w.stats.Bookmarks++
			if rv < last {
				w.problem("bookmark at %d after %d", rv, last)
			}
		case watch.Added, watch.Modified, watch.Deleted:
			w.stats.Events++
			if rv <= last {
				w.problem("%s %s at %d after %d: resourceVersions must increase", ev.Type, key, rv, last)
			}
			switch {
			case ev.Type == watch.Added && had:
				w.problem("ADDED %s at %d: already held at %d (a duplicate, or a DELETED missed)", key, rv, old)
			case ev.Type == watch.Modified && !had:
				w.problem("MODIFIED %s at %d: never added (an ADDED missed)", key, rv)
			case ev.Type == watch.Deleted && !had:
				w.problem("DELETED %s at %d: never added (an ADDED missed)", key, rv)
			}
			if ev.Type == watch.Deleted {
				delete(w.view.Objects, key)
			} else {
				w.view.Objects[key] = rv
			}
		}
		if rv > w.view.RV {
			w.view.RV = rv
		}
		w.mu.Unlock()
	}
	return false, false
}

// keyAndRV is an object's namespace/name and resourceVersion.
func keyAndRV(obj any) (string, uint64, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return "", 0, err
	}
	rv, err := strconv.ParseUint(m.GetResourceVersion(), 10, 64)
	if err != nil {
		return "", 0, fmt.Errorf("resourceVersion %q: %w", m.GetResourceVersion(), err)
	}
	return m.GetNamespace() + "/" + m.GetName(), rv, nil
}

// listAll lists everything client has that opts select, page by page (limit 100), at
// resourceVersion rv with match ("" and "": the latest); it returns the objects by
// namespace/name with their resourceVersions, and the list's resourceVersion.
func listAll(ctx context.Context, client dynamic.ResourceInterface, opts metav1.ListOptions, rv string, match metav1.ResourceVersionMatch) (map[string]uint64, uint64, error) {
	opts.Limit = 100
	opts.ResourceVersion, opts.ResourceVersionMatch = rv, match
	objects := map[string]uint64{}
	var listRV uint64
	for {
		list, err := client.List(ctx, opts)
		if err != nil {
			return nil, 0, err
		}
		if listRV == 0 {
			if listRV, err = strconv.ParseUint(list.GetResourceVersion(), 10, 64); err != nil {
				return nil, 0, fmt.Errorf("list resourceVersion %q: %w", list.GetResourceVersion(), err)
			}
		}
		for i := range list.Items {
			key, itemRV, err := keyAndRV(&list.Items[i])
			if err != nil {
				return nil, 0, err
			}
			objects[key] = itemRV
		}
		if list.GetContinue() == "" {
			return objects, listRV, nil
		}
		// The next pages come from the first page's snapshot: the continue token carries it.
		opts.Continue, opts.ResourceVersion, opts.ResourceVersionMatch = list.GetContinue(), "", ""
	}
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}
