package events

// Conversions between events.k8s.io/v1 Events and core Events (which the chain keeps as
// core/v1 Events), ported from kubernetes v1.37.2 pkg/apis/events/v1/conversion.go and the
// generated autoConvert functions next to it, and the events.k8s.io field label mapping.

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/conversion"
	"k8s.io/apimachinery/pkg/runtime"
)

// convertEventsV1ToCore is Convert_v1_Event_To_core_Event.
func convertEventsV1ToCore(in *eventsv1.Event, out *corev1.Event) {
	*out = corev1.Event{
		TypeMeta:            out.TypeMeta,
		ObjectMeta:          in.ObjectMeta,
		EventTime:           in.EventTime,
		ReportingController: in.ReportingController,
		ReportingInstance:   in.ReportingInstance,
		Action:              in.Action,
		Reason:              in.Reason,
		Related:             in.Related,
		Type:                in.Type,
		InvolvedObject:      in.Regarding,
		Source:              in.DeprecatedSource,
		Message:             in.Note,
		FirstTimestamp:      in.DeprecatedFirstTimestamp,
		LastTimestamp:       in.DeprecatedLastTimestamp,
		Count:               in.DeprecatedCount,
	}
	if in.Series != nil {
		out.Series = &corev1.EventSeries{Count: in.Series.Count, LastObservedTime: in.Series.LastObservedTime}
	}
}

// convertCoreToEventsV1 is Convert_core_Event_To_v1_Event.
func convertCoreToEventsV1(in *corev1.Event, out *eventsv1.Event) {
	*out = eventsv1.Event{
		TypeMeta:                 out.TypeMeta,
		ObjectMeta:               in.ObjectMeta,
		Reason:                   in.Reason,
		Type:                     in.Type,
		EventTime:                in.EventTime,
		Action:                   in.Action,
		Related:                  in.Related,
		ReportingController:      in.ReportingController,
		ReportingInstance:        in.ReportingInstance,
		Regarding:                in.InvolvedObject,
		DeprecatedSource:         in.Source,
		Note:                     in.Message,
		DeprecatedFirstTimestamp: in.FirstTimestamp,
		DeprecatedLastTimestamp:  in.LastTimestamp,
		DeprecatedCount:          in.Count,
	}
	if in.Series != nil {
		out.Series = &eventsv1.EventSeries{Count: in.Series.Count, LastObservedTime: in.Series.LastObservedTime}
	}
}

// addConversionFuncs registers the Event and EventList conversions, both ways.
func addConversionFuncs(scheme *runtime.Scheme) error {
	for _, f := range []struct {
		a, b interface{}
		fn   conversion.ConversionFunc
	}{
		{(*eventsv1.Event)(nil), (*corev1.Event)(nil), func(a, b interface{}, _ conversion.Scope) error {
			convertEventsV1ToCore(a.(*eventsv1.Event), b.(*corev1.Event))
			return nil
		}},
		{(*corev1.Event)(nil), (*eventsv1.Event)(nil), func(a, b interface{}, _ conversion.Scope) error {
			convertCoreToEventsV1(a.(*corev1.Event), b.(*eventsv1.Event))
			return nil
		}},
		{(*eventsv1.EventList)(nil), (*corev1.EventList)(nil), func(a, b interface{}, _ conversion.Scope) error {
			in, out := a.(*eventsv1.EventList), b.(*corev1.EventList)
			out.ListMeta = in.ListMeta
			out.Items = nil
			if in.Items != nil {
				out.Items = make([]corev1.Event, len(in.Items))
				for i := range in.Items {
					convertEventsV1ToCore(&in.Items[i], &out.Items[i])
				}
			}
			return nil
		}},
		{(*corev1.EventList)(nil), (*eventsv1.EventList)(nil), func(a, b interface{}, _ conversion.Scope) error {
			in, out := a.(*corev1.EventList), b.(*eventsv1.EventList)
			out.ListMeta = in.ListMeta
			out.Items = nil
			if in.Items != nil {
				out.Items = make([]eventsv1.Event, len(in.Items))
				for i := range in.Items {
					convertCoreToEventsV1(&in.Items[i], &out.Items[i])
				}
			}
			return nil
		}},
	} {
		if err := scheme.AddConversionFunc(f.a, f.b, f.fn); err != nil {
			return err
		}
	}
	return nil
}

// addFieldLabelConversionsForEvent is AddFieldLabelConversionsForEvent: events.k8s.io field
// names mapped to the field set of the core Event the storage holds.
func addFieldLabelConversionsForEvent(scheme *runtime.Scheme) error {
	mapping := map[string]string{
		"reason":                    "reason",
		"regarding.kind":            "involvedObject.kind",            // map events.k8s.io field to fieldset returned by ToSelectableFields
		"regarding.namespace":       "involvedObject.namespace",       // map events.k8s.io field to fieldset returned by ToSelectableFields
		"regarding.name":            "involvedObject.name",            // map events.k8s.io field to fieldset returned by ToSelectableFields
		"regarding.uid":             "involvedObject.uid",             // map events.k8s.io field to fieldset returned by ToSelectableFields
		"regarding.apiVersion":      "involvedObject.apiVersion",      // map events.k8s.io field to fieldset returned by ToSelectableFields
		"regarding.resourceVersion": "involvedObject.resourceVersion", // map events.k8s.io field to fieldset returned by ToSelectableFields
		"regarding.fieldPath":       "involvedObject.fieldPath",       // map events.k8s.io field to fieldset returned by ToSelectableFields
		"reportingController":       "reportingComponent",             // map events.k8s.io field to fieldset returned by ToSelectableFields
		"type":                      "type",
		"metadata.namespace":        "metadata.namespace",
		"metadata.name":             "metadata.name",
	}
	return scheme.AddFieldLabelConversionFunc(eventsv1.SchemeGroupVersion.WithKind("Event"),
		func(label, value string) (string, string, error) {
			mappedLabel, ok := mapping[label]
			if !ok {
				return "", "", fmt.Errorf("field label not supported: %s", label)
			}
			return mappedLabel, value, nil
		},
	)
}
