package core

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/apichain/apichain/servers/core/validation/validationtest"
)

// event is an old-style core/v1 Event about a pod, changed by edit.
func event(edit func(*corev1.Event)) *corev1.Event {
	e := &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: "ev", Namespace: "ns", ResourceVersion: "1"},
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "p", Namespace: "ns"},
		Reason:         "Started", Message: "m", Type: corev1.EventTypeNormal,
	}
	if edit != nil {
		edit(e)
	}
	return e
}

// newStyle makes e an event as events.k8s.io writes them.
func newStyle(e *corev1.Event) {
	e.EventTime = metav1.NewMicroTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	e.ReportingController, e.ReportingInstance, e.Action = "example.com/ctrl", "ctrl-1", "Start"
}

func TestEvent(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*corev1.Event)
		want []string
	}{
		{"valid", nil, nil},
		{"any name, any type", func(e *corev1.Event) { e.Name, e.Type = "Bad_Name", "Weird" }, nil},
		{"another namespace", func(e *corev1.Event) { e.InvolvedObject.Namespace = "other" },
			[]string{`involvedObject.namespace: Invalid value: "other": does not match event.namespace`}},
		{"a cluster-scoped object, in default", func(e *corev1.Event) { e.InvolvedObject.Namespace, e.Namespace = "", "default" }, nil},
		{"a cluster-scoped object, elsewhere", func(e *corev1.Event) { e.InvolvedObject.Namespace = "" },
			[]string{`involvedObject.namespace: Invalid value: "": does not match event.namespace`}},
		{"new style", newStyle, nil},
		{"new style, nothing said", func(e *corev1.Event) {
			e.EventTime = metav1.NowMicro()
			e.Reason = ""
		}, []string{
			"reportingComponent: Required value",
			`reportingComponent: Invalid value: "": name part must be non-empty`,
			`reportingComponent: Invalid value: "": name part must consist of alphanumeric characters`,
			"reportingInstance: Required value",
			"action: Required value",
			"reason: Required value",
		}},
		{"new style, too long", func(e *corev1.Event) {
			newStyle(e)
			e.ReportingInstance, e.Message = strings.Repeat("i", 129), strings.Repeat("m", 1025)
		}, []string{
			`reportingInstance: Invalid value: "": can have at most 128 characters`,
			`message: Invalid value: "": can have at most 1024 characters`,
		}},
	} {
		validationtest.Expect(t, tc.name, ValidateEvent(event(tc.edit)), tc.want...)
	}
	validationtest.Expect(t, "rewritten", ValidateEventUpdate(event(func(e *corev1.Event) { e.Message = "changed" }), event(nil)))
}

func TestEventsV1Event(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*corev1.Event)
		want []string
	}{
		{"valid", newStyle, nil},
		{"old fields", func(e *corev1.Event) {
			newStyle(e)
			e.Count, e.Source, e.FirstTimestamp = 2, corev1.EventSource{Component: "kubelet"}, metav1.Now()
		}, []string{
			`firstTimestamp: Invalid value: "": needs to be unset`,
			`count: Invalid value: "": needs to be unset`,
			`source: Invalid value: "": needs to be unset`,
		}},
		{"old style", func(e *corev1.Event) { e.Name, e.Type = "Bad_Name", "Odd" }, []string{
			`metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain`,
			"eventTime: Required value",
			`type: Invalid value: "": has invalid value: Odd`,
		}},
		{"reporter", func(e *corev1.Event) { newStyle(e); e.ReportingController = "bad reporter" },
			[]string{`reportingController: Invalid value: "bad reporter": name part must consist of alphanumeric characters`}},
		{"series", func(e *corev1.Event) { newStyle(e); e.Series = &corev1.EventSeries{Count: 1} }, []string{
			`series.count: Invalid value: "": should be at least 2`,
			"series.lastObservedTime: Required value",
		}},
	} {
		validationtest.Expect(t, tc.name, ValidateEventsV1Event(event(tc.edit)), tc.want...)
	}

	old := event(newStyle)
	validationtest.Expect(t, "a series grows", ValidateEventsV1EventUpdate(event(func(e *corev1.Event) {
		newStyle(e)
		e.Series = &corev1.EventSeries{Count: 2, LastObservedTime: metav1.NowMicro()}
		e.EventTime = metav1.NewMicroTime(old.EventTime.Add(100 * time.Nanosecond)) // below what is stored
	}), old))
	validationtest.Expect(t, "what happened stays", ValidateEventsV1EventUpdate(event(func(e *corev1.Event) {
		newStyle(e)
		e.InvolvedObject.Name, e.Action, e.ReportingInstance = "q", "Stop", "ctrl-2"
	}), old),
		`involvedObject: Invalid value: {"Kind":"Pod","Namespace":"ns","Name":"q","UID":"","APIVersion":"","ResourceVersion":"","FieldPath":""}: field is immutable`,
		`action: Invalid value: "Stop": field is immutable`,
		`reportingInstance: Invalid value: "ctrl-2": field is immutable`)
}
