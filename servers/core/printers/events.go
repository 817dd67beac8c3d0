package printers

import (
	"cmp"
	"strings"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Event prints core/v1 Events, the Events of events.k8s.io/v1 too: Core
// stores both as core Events (servers/core/registry/events).
var Event = define("events", eventCells)

// EventsV1Event prints an events.k8s.io/v1 Event object with the same
// columns, from the core Event fields it corresponds to.
var EventsV1Event = define("events", func(e *eventsv1.Event) []any {
	core := &corev1.Event{
		ObjectMeta: e.ObjectMeta, InvolvedObject: e.Regarding, Type: e.Type, Reason: e.Reason, Message: e.Note,
		Source: e.DeprecatedSource, ReportingController: e.ReportingController, ReportingInstance: e.ReportingInstance,
		FirstTimestamp: e.DeprecatedFirstTimestamp, LastTimestamp: e.DeprecatedLastTimestamp, EventTime: e.EventTime,
		Count: e.DeprecatedCount,
	}
	if e.Series != nil {
		core.Series = &corev1.EventSeries{Count: e.Series.Count, LastObservedTime: e.Series.LastObservedTime}
	}
	return eventCells(core)
})

// eventCells: Last Seen, Type, Reason, Object, Subobject, Source, Message,
// First Seen, Count, Name. Events written by the newer API have an eventTime
// and a series instead of first/last timestamps and a count.
func eventCells(e *corev1.Event) []any {
	first := age(e.FirstTimestamp)
	if e.FirstTimestamp.IsZero() {
		first = age(metav1.Time(e.EventTime))
	}
	last, count := age(e.LastTimestamp), e.Count
	if e.LastTimestamp.IsZero() {
		last = first
	}
	if e.Series != nil {
		last, count = age(metav1.Time(e.Series.LastObservedTime)), e.Series.Count
	} else if count == 0 {
		count = 1 // a single occurrence
	}

	object := strings.ToLower(e.InvolvedObject.Kind)
	if e.InvolvedObject.Name != "" {
		object += "/" + e.InvolvedObject.Name
	}
	source := cmp.Or(e.Source.Component, e.ReportingController)
	if host := cmp.Or(e.Source.Host, e.ReportingInstance); host != "" {
		source += ", " + host
	}
	return []any{last, e.Type, e.Reason, object, e.InvolvedObject.FieldPath, source, strings.TrimSpace(e.Message), first, count, e.Name}
}
