package loop

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/apichain/apichain/internal/workgroup"
)

// Events is the one event broadcaster of the controllers of a chain, as a controller-runtime
// manager has one for its controllers. A broadcaster's correlator remembers the objects it
// has reported on, to count repeats and hold back spam, in caches of 4096 entries each: one
// broadcaster a controller, as kube-controller-manager has, would keep a set of them for every
// controller of the process. Each event is still written by the client of the controller
// that recorded it, so it keeps that controller's identity.
//
// The events are written here (write), not by client-go's StartRecordingToSink, so that Stop
// can wait for the last one: the sink goroutine StartRecordingToSink starts cannot be waited
// for, and it logs (through klog's process-wide logger) when a write it retries is cut short,
// after the chain has stopped; chaintest restores klog's settings as its last Environment
// stops, and go test -race saw the two race.
type Events struct {
	ctx         context.Context
	broadcaster record.EventBroadcaster
	sink        *componentSink
	// correlator counts repeats and holds back spam, as StartRecordingToSink's does; only the
	// broadcaster's one watcher goroutine uses it.
	correlator *record.EventCorrelator
	// writing counts the writes under way, which Stop waits for.
	writing workgroup.Group
}

type eventsKey struct{}

// NewEvents starts a broadcaster for the controllers started with WithEvents(ctx). Once ctx is
// done, call Stop.
func NewEvents(ctx context.Context) *Events {
	e := &Events{ctx: ctx, broadcaster: record.NewBroadcaster(record.WithContext(ctx)),
		sink: &componentSink{sinks: map[string]record.EventSink{}}, correlator: record.NewEventCorrelator(clock.RealClock{})}
	e.broadcaster.StartEventWatcher(e.write)
	return e
}

// Stop refuses further writes, waits for those under way, and shuts the broadcaster down: what
// is still queued is dropped, as client-go's broadcaster drops it on Shutdown.
func (e *Events) Stop() {
	e.writing.Stop()
	e.broadcaster.Shutdown()
}

// WithEvents is ctx for controllers that record through e (Recorder).
func WithEvents(ctx context.Context, e *Events) context.Context {
	return context.WithValue(ctx, eventsKey{}, e)
}

func (e *Events) recorder(client kubernetes.Interface, component string) record.EventRecorder {
	e.sink.add(component, &typedcorev1.EventSinkImpl{Interface: client.CoreV1().Events("")})
	return e.broadcaster.NewRecorder(scheme.Scheme, corev1.EventSource{Component: component})
}

// write writes one event the broadcaster hands over, unless Stop has been called.
func (e *Events) write(event *corev1.Event) {
	e.writing.Run(func() { e.writeEvent(event) })
}

// writeEvent writes one event: correlated with those before it, then created (or, a repeat,
// patched) through its component's client, retried with backoff while the chain cannot be
// reached and ctx lasts. The chain's own refusal is final.
func (e *Events) writeEvent(event *corev1.Event) {
	copied := *event // the broadcaster's watchers share it
	result, err := e.correlator.EventCorrelate(&copied)
	if err != nil {
		utilruntime.HandleErrorWithContext(e.ctx, err, "Event correlation failed")
	}
	if result == nil || result.Skip {
		return
	}
	backoff := wait.Backoff{Duration: 100 * time.Millisecond, Factor: 2, Jitter: 0.5, Steps: 8, Cap: 10 * time.Second}
	_ = wait.ExponentialBackoffWithContext(e.ctx, backoff, func(context.Context) (bool, error) {
		return e.writeOnce(result), nil
	})
}

// writeOnce says whether the event is done with: written, or refused for good.
func (e *Events) writeOnce(result *record.EventCorrelateResult) bool {
	event := result.Event
	sink, err := e.sink.of(event)
	if err != nil {
		utilruntime.HandleErrorWithContext(e.ctx, err, "Event not written", "event", klog.KObj(event))
		return true
	}
	var written *corev1.Event
	if event.Count > 1 {
		written, err = sink.Patch(event, result.Patch)
	}
	if event.Count <= 1 || apierrors.IsNotFound(err) { // a repeat of an event gone: created again
		event.ResourceVersion = ""
		written, err = sink.Create(event)
	}
	var status apierrors.APIStatus
	switch {
	case err == nil:
		e.correlator.UpdateState(written)
		return true
	case errors.As(err, &status):
		if !apierrors.IsAlreadyExists(err) && !apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause) {
			utilruntime.HandleErrorWithContext(e.ctx, err, "The chain refused an event", "event", klog.KObj(event))
		}
		return true
	default: // not reached the chain: retried
		klog.FromContext(e.ctx).V(2).Info("Writing an event failed; retrying", "event", klog.KObj(event), "err", err)
		return false
	}
}

// componentSink writes each event through the sink of the component that recorded it
// (event.Source.Component, which the recorder sets).
type componentSink struct {
	mu    sync.RWMutex
	sinks map[string]record.EventSink
}

func (s *componentSink) add(component string, sink record.EventSink) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sinks[component] = sink
}

func (s *componentSink) of(event *corev1.Event) (record.EventSink, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if sink, ok := s.sinks[event.Source.Component]; ok {
		return sink, nil
	}
	return nil, fmt.Errorf("no client records events for %q", event.Source.Component)
}

func (s *componentSink) Create(event *corev1.Event) (*corev1.Event, error) {
	sink, err := s.of(event)
	if err != nil {
		return nil, err
	}
	return sink.Create(event)
}

func (s *componentSink) Update(event *corev1.Event) (*corev1.Event, error) {
	sink, err := s.of(event)
	if err != nil {
		return nil, err
	}
	return sink.Update(event)
}

func (s *componentSink) Patch(event *corev1.Event, data []byte) (*corev1.Event, error) {
	sink, err := s.of(event)
	if err != nil {
		return nil, err
	}
	return sink.Patch(event, data)
}

var _ record.EventSink = &componentSink{}
