package loop

import (
	"context"
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/record"
)

// Events is the one event broadcaster of the controllers of a chain, as a controller-runtime
// manager has one for its controllers. A broadcaster's correlator remembers the objects it
// has reported on, to count repeats and hold back spam, in caches of 4096 entries each: one
// broadcaster a controller, as kube-controller-manager has, would keep a set of them for every
// controller of the process. Each event is still written by the client of the controller
// that recorded it, so it keeps that controller's identity.
type Events struct {
	broadcaster record.EventBroadcaster
	sink        *componentSink
}

type eventsKey struct{}

// NewEvents starts a broadcaster for the controllers started with WithEvents(ctx); it stops
// when ctx is done.
func NewEvents(ctx context.Context) *Events {
	e := &Events{broadcaster: record.NewBroadcaster(record.WithContext(ctx)), sink: &componentSink{sinks: map[string]record.EventSink{}}}
	e.broadcaster.StartRecordingToSink(e.sink)
	go func() {
		<-ctx.Done()
		e.broadcaster.Shutdown()
	}()
	return e
}

// WithEvents is ctx for controllers that record through e (Recorder).
func WithEvents(ctx context.Context, e *Events) context.Context {
	return context.WithValue(ctx, eventsKey{}, e)
}

func (e *Events) recorder(client kubernetes.Interface, component string) record.EventRecorder {
	e.sink.add(component, &typedcorev1.EventSinkImpl{Interface: client.CoreV1().Events("")})
	return e.broadcaster.NewRecorder(scheme.Scheme, corev1.EventSource{Component: component})
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
