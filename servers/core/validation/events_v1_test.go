package validation

// Table tests for events.k8s.io/v1 Event validation. Cases and messages follow kubernetes
// v1.37.2 pkg/apis/core/validation/events_test.go (TestValidateEventForCoreV1Events,
// TestValidateEventForNewV1beta1Events, TestEventV1EventTimeImmutability) for request version
// events.k8s.io/v1.

import (
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func eventsV1Event(mutate func(*v1.Event)) *v1.Event {
	e := &v1.Event{
		ObjectMeta:          metav1.ObjectMeta{Name: "e", Namespace: "default", ResourceVersion: "1"},
		InvolvedObject:      v1.ObjectReference{Kind: "Pod", Name: "p", Namespace: "default"},
		EventTime:           metav1.NewMicroTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)),
		ReportingController: "example.com/c", ReportingInstance: "i", Action: "A", Reason: "R", Type: v1.EventTypeNormal,
	}
	if mutate != nil {
		mutate(e)
	}
	return e
}

func TestValidateEventsV1Event(t *testing.T) {
	cases := []struct {
		name string
		obj  *v1.Event
		want []string
	}{
		{"valid", eventsV1Event(nil), nil},
		{"legacy fields", eventsV1Event(func(e *v1.Event) {
			e.Count = 2
			e.Source = v1.EventSource{Component: "kubelet"}
			e.FirstTimestamp = metav1.Now()
		}), []string{
			`firstTimestamp: Invalid value: "": needs to be unset`,
			`count: Invalid value: "": needs to be unset`,
			`source: Invalid value: "": needs to be unset`,
		}},
		{"no event time", eventsV1Event(func(e *v1.Event) { e.EventTime = metav1.MicroTime{} }), []string{"eventTime: Required value"}},
		{"missing reporting fields", eventsV1Event(func(e *v1.Event) {
			e.ReportingController, e.ReportingInstance, e.Action, e.Reason = "", "", "", ""
		}), []string{
			"reportingController: Required value",
			`reportingController: Invalid value: "": name part must be non-empty`,
			`reportingController: Invalid value: "": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
			"reportingInstance: Required value",
			"action: Required value",
			"reason: Required value",
		}},
		{"type", eventsV1Event(func(e *v1.Event) { e.Type = "Odd" }), []string{`type: Invalid value: "": has invalid value: Odd`}},
		{"series", eventsV1Event(func(e *v1.Event) { e.Series = &v1.EventSeries{Count: 1} }), []string{
			`series.count: Invalid value: "": should be at least 2`,
			"series.lastObservedTime: Required value",
		}},
		{"note too long", eventsV1Event(func(e *v1.Event) { e.Message = strings.Repeat("x", 1025) }),
			[]string{`message: Invalid value: "": can have at most 1024 characters`}},
		{"namespace", eventsV1Event(func(e *v1.Event) { e.InvolvedObject.Namespace = ""; e.Namespace = "other" }),
			[]string{`involvedObject.namespace: Invalid value: "": does not match event.namespace`}},
	}
	for _, tc := range cases {
		expectErrors(t, tc.name, ValidateEventsV1Event(tc.obj), tc.want)
	}

	old := eventsV1Event(nil)
	expectErrors(t, "sub-microsecond eventTime change", ValidateEventsV1EventUpdate(eventsV1Event(func(e *v1.Event) {
		e.EventTime = metav1.NewMicroTime(old.EventTime.Add(100 * time.Nanosecond))
	}), old), nil)
	expectErrors(t, "immutable fields", ValidateEventsV1EventUpdate(eventsV1Event(func(e *v1.Event) {
		e.Action = "B"
		e.ReportingInstance = "j"
	}), old), []string{
		`action: Invalid value: "B": field is immutable`,
		`reportingInstance: Invalid value: "j": field is immutable`,
	})
}
