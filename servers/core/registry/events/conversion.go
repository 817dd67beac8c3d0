package events

// An events.k8s.io/v1 Event is a core/v1 Event with some fields renamed (involvedObject is
// regarding, message is note, ...) and the older ones marked deprecated. The storage holds core
// Events; these conversions give the events.k8s.io view of them, both ways.

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/conversion"
	"k8s.io/apimachinery/pkg/runtime"
)

func toCore(e *eventsv1.Event, c *corev1.Event) {
	*c = corev1.Event{TypeMeta: c.TypeMeta, ObjectMeta: e.ObjectMeta}
	// Named alike in both.
	c.Reason, c.Type, c.Action, c.Related = e.Reason, e.Type, e.Action, e.Related
	c.EventTime, c.ReportingController, c.ReportingInstance = e.EventTime, e.ReportingController, e.ReportingInstance
	// Renamed by events.k8s.io.
	c.InvolvedObject, c.Message, c.Source = e.Regarding, e.Note, e.DeprecatedSource
	c.FirstTimestamp, c.LastTimestamp, c.Count = e.DeprecatedFirstTimestamp, e.DeprecatedLastTimestamp, e.DeprecatedCount
	if s := e.Series; s != nil {
		c.Series = &corev1.EventSeries{Count: s.Count, LastObservedTime: s.LastObservedTime}
	}
}

func fromCore(c *corev1.Event, e *eventsv1.Event) {
	*e = eventsv1.Event{TypeMeta: e.TypeMeta, ObjectMeta: c.ObjectMeta}
	e.Reason, e.Type, e.Action, e.Related = c.Reason, c.Type, c.Action, c.Related
	e.EventTime, e.ReportingController, e.ReportingInstance = c.EventTime, c.ReportingController, c.ReportingInstance
	e.Regarding, e.Note, e.DeprecatedSource = c.InvolvedObject, c.Message, c.Source
	e.DeprecatedFirstTimestamp, e.DeprecatedLastTimestamp, e.DeprecatedCount = c.FirstTimestamp, c.LastTimestamp, c.Count
	if s := c.Series; s != nil {
		e.Series = &eventsv1.EventSeries{Count: s.Count, LastObservedTime: s.LastObservedTime}
	}
}

// eachItem converts the items of a list; a nil list stays nil.
func eachItem[From, To any](in []From, convert func(*From, *To)) []To {
	if in == nil {
		return nil
	}
	out := make([]To, len(in))
	for i := range in {
		convert(&in[i], &out[i])
	}
	return out
}

// addConversionFuncs registers both conversions, for Events and for EventLists.
func addConversionFuncs(scheme *runtime.Scheme) error {
	funcs := []struct {
		from, to interface{}
		convert  func(from, to interface{})
	}{
		{(*eventsv1.Event)(nil), (*corev1.Event)(nil), func(a, b interface{}) { toCore(a.(*eventsv1.Event), b.(*corev1.Event)) }},
		{(*corev1.Event)(nil), (*eventsv1.Event)(nil), func(a, b interface{}) { fromCore(a.(*corev1.Event), b.(*eventsv1.Event)) }},
		{(*eventsv1.EventList)(nil), (*corev1.EventList)(nil), func(a, b interface{}) {
			in, out := a.(*eventsv1.EventList), b.(*corev1.EventList)
			out.ListMeta, out.Items = in.ListMeta, eachItem(in.Items, toCore)
		}},
		{(*corev1.EventList)(nil), (*eventsv1.EventList)(nil), func(a, b interface{}) {
			in, out := a.(*corev1.EventList), b.(*eventsv1.EventList)
			out.ListMeta, out.Items = in.ListMeta, eachItem(in.Items, fromCore)
		}},
	}
	for _, f := range funcs {
		convert := f.convert
		err := scheme.AddConversionFunc(f.from, f.to, func(a, b interface{}, _ conversion.Scope) error {
			convert(a, b)
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// addFieldLabelConversionsForEvent lets events.k8s.io field selectors name the events.k8s.io
// fields: each maps to the core Event field that the storage selects on (toSelectableFields).
func addFieldLabelConversionsForEvent(scheme *runtime.Scheme) error {
	mapping := map[string]string{
		"reason":              "reason",
		"type":                "type",
		"reportingController": "reportingComponent",
		"metadata.name":       "metadata.name",
		"metadata.namespace":  "metadata.namespace",
	}
	for _, f := range []string{"kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath"} {
		mapping["regarding."+f] = "involvedObject." + f
	}
	return scheme.AddFieldLabelConversionFunc(eventsv1.SchemeGroupVersion.WithKind("Event"), func(label, value string) (string, string, error) {
		core, ok := mapping[label]
		if !ok {
			return "", "", fmt.Errorf("field label not supported: %s", label)
		}
		return core, value, nil
	})
}
