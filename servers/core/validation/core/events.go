package core

// Events come in two shapes: core/v1 Events, which old clients write freely (first and last
// timestamp, a count), and events.k8s.io/v1 Events, which name who reported what and when
// (eventTime, reportingController, action) and count repeats in a series. Both are stored as
// core Events, and kube-apiserver checks them by the API they were written through: through
// core/v1 leniently, through events.k8s.io strictly. The paths are the core Event's either way.

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apichain/apichain/servers/core/validation"
)

// ValidateEvent is the rule list of a core/v1 Event, created or updated. Its name is not
// checked beyond what any object's is: old clients named events freely.
func ValidateEvent(e *corev1.Event) field.ErrorList {
	return eventBasics(e, "reportingComponent")
}

// ValidateEventUpdate: a core/v1 Event may be rewritten at will, if it stays valid.
func ValidateEventUpdate(e, old *corev1.Event) field.ErrorList {
	return ValidateEvent(e)
}

// ValidateEventsV1Event is the rule list of an Event created through events.k8s.io/v1: a
// valid name, an eventTime, a known type, and none of the old fields it replaces.
func ValidateEventsV1Event(e *corev1.Event) field.ErrorList {
	unset := func(name string, set bool) field.ErrorList {
		return validation.When(set, field.Invalid(field.NewPath(name), "", "needs to be unset"))
	}
	return validation.Join(
		eventBasics(e, "reportingController"),
		validation.Meta(&e.ObjectMeta, true, validation.SubdomainName, metadata),
		series(e.Series),
		validation.When(e.EventTime.IsZero(), field.Required(field.NewPath("eventTime"), "")),
		validation.When(e.Type != corev1.EventTypeNormal && e.Type != corev1.EventTypeWarning,
			field.Invalid(field.NewPath("type"), "", fmt.Sprintf("has invalid value: %v", e.Type))),
		unset("firstTimestamp", !e.FirstTimestamp.IsZero()),
		unset("lastTimestamp", !e.LastTimestamp.IsZero()),
		unset("count", e.Count != 0),
		unset("source", e.Source.Component != "" || e.Source.Host != ""),
	)
}

// ValidateEventsV1EventUpdate: an events.k8s.io Event records something that happened; only
// its series (how often it happened since) may change.
func ValidateEventsV1EventUpdate(e, old *corev1.Event) field.ErrorList {
	same := func(name string, v, oldV interface{}) field.ErrorList {
		return validation.Immutable(field.NewPath(name), v, oldV)
	}
	sameStruct := func(name string, v, oldV interface{}) field.ErrorList {
		return validation.When(!equality.Semantic.DeepEqual(v, oldV), field.Invalid(field.NewPath(name), validation.Internal(v), "field is immutable"))
	}
	var seriesErrs, eventTime field.ErrorList
	if !equality.Semantic.DeepEqual(e.Series, old.Series) {
		seriesErrs = series(e.Series)
	}
	// Clients that write microseconds may send back what they read a little differently.
	if !e.EventTime.Truncate(time.Microsecond).Equal(old.EventTime.Truncate(time.Microsecond)) {
		eventTime = same("eventTime", e.EventTime, old.EventTime)
	}
	return validation.Join(
		eventBasics(e, "reportingController"),
		validation.MetaUpdate(&e.ObjectMeta, &old.ObjectMeta, metadata),
		seriesErrs,
		sameStruct("involvedObject", e.InvolvedObject, old.InvolvedObject),
		same("reason", e.Reason, old.Reason),
		same("message", e.Message, old.Message),
		sameStruct("source", e.Source, old.Source),
		same("firstTimestamp", e.FirstTimestamp, old.FirstTimestamp),
		same("lastTimestamp", e.LastTimestamp, old.LastTimestamp),
		same("count", e.Count, old.Count),
		same("type", e.Type, old.Type),
		eventTime,
		same("action", e.Action, old.Action),
		sameStruct("related", e.Related, old.Related),
		same("reportingController", e.ReportingController, old.ReportingController),
		same("reportingInstance", e.ReportingInstance, old.ReportingInstance),
	)
}

// eventBasics: what every event must hold to, reporter named as the API names that field.
// An old-style event (no eventTime) lives in its object's namespace; a new-style one names its
// reporter, what it did and why, within length limits.
func eventBasics(e *corev1.Event, reporter string) field.ErrorList {
	involvedNS := field.NewPath("involvedObject", "namespace")
	mismatch := field.Invalid(involvedNS, e.InvolvedObject.Namespace, "does not match event.namespace")
	if e.EventTime.IsZero() {
		if e.InvolvedObject.Namespace == "" {
			// About a cluster-scoped object: old clients put those in "default".
			return validation.When(e.Namespace != metav1.NamespaceNone && e.Namespace != metav1.NamespaceDefault, mismatch)
		}
		return validation.When(e.Namespace != e.InvolvedObject.Namespace, mismatch)
	}
	return validation.Join(
		validation.When(e.InvolvedObject.Namespace == "" && e.Namespace != metav1.NamespaceDefault && e.Namespace != metav1.NamespaceSystem, mismatch),
		validation.Required(field.NewPath(reporter), e.ReportingController),
		validation.QualifiedName(field.NewPath(reporter), e.ReportingController),
		requiredWithin(field.NewPath("reportingInstance"), e.ReportingInstance, 128),
		requiredWithin(field.NewPath("action"), e.Action, 128),
		requiredWithin(field.NewPath("reason"), e.Reason, 128),
		tooLong(field.NewPath("message"), e.Message, 1024),
	)
}

// requiredWithin: a string that must be set, at most limit bytes long.
func requiredWithin(path *field.Path, value string, limit int) field.ErrorList {
	return validation.Join(validation.Required(path, value), tooLong(path, value, limit))
}

// tooLong: kube-apiserver reports an event's over-long strings as Invalid, without the value.
func tooLong(path *field.Path, value string, limit int) field.ErrorList {
	return validation.When(len(value) > limit, field.Invalid(path, "", fmt.Sprintf("can have at most %d characters", limit)))
}

// series: a series counts repeats, so at least two, and says when the last one was.
func series(s *corev1.EventSeries) field.ErrorList {
	if s == nil {
		return nil
	}
	return validation.Join(
		validation.When(s.Count < 2, field.Invalid(field.NewPath("series", "count"), "", "should be at least 2")),
		validation.When(s.LastObservedTime.IsZero(), field.Required(field.NewPath("series", "lastObservedTime"), "")),
	)
}
