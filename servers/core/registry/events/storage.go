// Package events is the events.k8s.io API group of the Core server, following kubernetes
// pkg/registry/events: events.k8s.io/v1 Events, which are the core Events under another shape.
//
// kube-apiserver serves both from one storage (pkg/registry/core/event/storage): the objects live
// once in etcd, under /registry/events, encoded as core/v1 Events (the storage factory makes
// events.k8s.io/events cohabit with core events), and an event written through one API is read
// through the other. Here the events.k8s.io resource keeps core/v1 Events in memory too: the
// scheme registers corev1.Event as the group's internal Event, and pkg/apis/events/v1's
// conversions (conversion.go) turn it into events.k8s.io/v1 Events at the edges.
package events

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apiserver/pkg/registry/generic"
	"k8s.io/apiserver/pkg/registry/rest"
	genericapiserver "k8s.io/apiserver/pkg/server"

	"github.com/apichain/apichain/servers/core/printers"
	"github.com/apichain/apichain/servers/core/registry"
	"github.com/apichain/apichain/servers/core/resource"
	corevalidation "github.com/apichain/apichain/servers/core/validation/core"
)

// Group is the events.k8s.io group: its types, conversions, field selectors and storage.
func Group() Provider { return Provider{} }

// Provider is the events.k8s.io StorageProvider: a registry.Group whose scheme registration
// differs (the internal Event is the core/v1 one).
type Provider struct {
	// TTL is how long an Event is kept after its last write (--event-ttl); 0: an hour.
	TTL time.Duration
}

var _ registry.StorageProvider = Provider{}

// GroupName implements registry.StorageProvider.
func (Provider) GroupName() string { return eventsv1.GroupName }

// NewRESTStorage implements registry.StorageProvider.
func (p Provider) NewRESTStorage(scheme *runtime.Scheme, codecs serializer.CodecFactory, optsGetter generic.RESTOptionsGetter) (genericapiserver.APIGroupInfo, error) {
	info, _, err := registry.NewGroup(eventsv1.SchemeGroupVersion, scheme, codecs, optsGetter, events.WithTTL(p.TTL))
	return info, err
}

// AddToScheme registers events.k8s.io/v1, core/v1 Events as its internal version, the
// conversions between them, and the events.k8s.io field selectors.
func (Provider) AddToScheme(scheme *runtime.Scheme) error {
	if err := eventsv1.AddToScheme(scheme); err != nil {
		return err
	}
	internal := schema.GroupVersion{Group: eventsv1.GroupName, Version: runtime.APIVersionInternal}
	scheme.AddKnownTypeWithName(internal.WithKind("Event"), &corev1.Event{})
	scheme.AddKnownTypeWithName(internal.WithKind("EventList"), &corev1.EventList{})
	if err := addConversionFuncs(scheme); err != nil {
		return err
	}
	if err := addFieldLabelConversionsForEvent(scheme); err != nil {
		return err
	}
	return scheme.SetVersionPriority(eventsv1.SchemeGroupVersion)
}

// events is the events.k8s.io view of the core event storage (pkg/registry/core/event), with
// kube-apiserver's --event-ttl of one hour. Validation is the strict one of requests in
// events.k8s.io/v1 (pkg/apis/core/validation/events.go).
var events = &resource.Definition{
	Resource: "events", Singular: "event", Namespaced: true,
	New:                 func() runtime.Object { return &corev1.Event{} },
	NewList:             func() runtime.Object { return &corev1.EventList{} },
	ShortNames:          []string{"ev"},
	Table:               printers.Event, // the objects are core Events: printed like upstream's internal ones
	AllowCreateOnUpdate: true,
	TTLSeconds:          3600,
	// Events take no part in garbage collection options.
	GarbageCollectionPolicy: rest.Unsupported,
	Fields:                  resource.FieldsOf(toSelectableFields),
	Validate:                resource.Check(corevalidation.ValidateEventsV1Event),
	ValidateUpdate:          resource.CheckUpdate(corevalidation.ValidateEventsV1EventUpdate),
}

// toSelectableFields is the event strategy's ToSelectableFields: the field set of a core Event,
// which the events.k8s.io field labels map onto.
func toSelectableFields(event *corev1.Event) fields.Set {
	source := event.Source.Component
	if source == "" {
		source = event.ReportingController
	}
	return fields.Set{
		"involvedObject.kind":            event.InvolvedObject.Kind,
		"involvedObject.namespace":       event.InvolvedObject.Namespace,
		"involvedObject.name":            event.InvolvedObject.Name,
		"involvedObject.uid":             string(event.InvolvedObject.UID),
		"involvedObject.apiVersion":      event.InvolvedObject.APIVersion,
		"involvedObject.resourceVersion": event.InvolvedObject.ResourceVersion,
		"involvedObject.fieldPath":       event.InvolvedObject.FieldPath,
		"reason":                         event.Reason,
		"reportingComponent":             event.ReportingController, // use the core/v1 field name
		"source":                         source,
		"type":                           event.Type,
	}
}
