// Package resource is the Core server's one way to store a built-in resource. Each resource is
// declared once, as a Definition (names, scope, subresources, columns, field selectors, the
// defaulting and validation hooks that differ), and NewStorage turns that declaration into the
// k8s.io/apiserver generic registry store that kube-apiserver itself uses for the resource.
//
// Where kube-apiserver has one hand-written strategy per resource (pkg/registry/<group>/<resource>/
// strategy.go), the chain has one strategy here, parameterised by the Definition: what is the same
// everywhere is written once, what differs is a hook.
package resource

import (
	"context"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/storage/names"
)

// Definition declares one built-in resource of the Core server.
type Definition struct {
	// Resource is the plural name in URLs ("pods"); Singular the singular one ("pod").
	Resource, Singular string
	// Namespaced resources live under /namespaces/<ns>/.
	Namespaced bool
	// New and NewList return empty objects of the k8s.io/api type and its list.
	New, NewList func() runtime.Object

	// ShortNames and Categories appear in discovery (`kubectl get po`, `kubectl get all`).
	ShortNames []string
	Categories []string

	// Table prints the resource for `kubectl get` (servers/core/printers).
	Table rest.TableConvertor

	// Status adds the /status subresource: the main resource then ignores status changes and
	// /status ignores everything else, as in kube-apiserver.
	Status bool
	// KeepStatusOnCreate keeps a status sent on create (nodes: the kubelet registers with one).
	// Otherwise a resource with a status subresource starts with an empty status.
	KeepStatusOnCreate bool
	// MainWritesStatus lets creates and updates of the main resource write status too, besides
	// /status (servicecidrs: kube-apiserver's strategy resets neither).
	MainWritesStatus bool
	// Generation makes metadata.generation start at 1 and grow with every change of the spec.
	Generation bool

	// NameGenerator makes a name from a generateName; nil adds a random suffix
	// (names.SimpleNameGenerator), as almost every resource does.
	NameGenerator names.NameGenerator

	// FieldSelectors lists the fields, beyond metadata.name and metadata.namespace, that list and
	// watch can select on; Fields returns their values for one object.
	FieldSelectors []string
	Fields         func(obj runtime.Object) fields.Set

	// PrepareForCreate and PrepareForUpdate run after the generic preparation (status handling,
	// generation) and before validation: the resource's own clearing and defaulting of system fields.
	PrepareForCreate func(ctx context.Context, obj runtime.Object)
	PrepareForUpdate func(ctx context.Context, obj, old runtime.Object)

	// Warnings returns the warnings a create or update gets for an object that is valid but
	// probably not what its writer meant.
	Warnings func(obj runtime.Object) []string

	// Canonicalize runs last, after validation, on create and update (namespaces set their
	// name label here, once generateName has produced the name).
	Canonicalize func(obj runtime.Object)

	// Validate, ValidateUpdate and ValidateStatusUpdate return kube-apiserver's field errors.
	// Object metadata is validated generically after them (name, labels, annotations...).
	Validate             func(obj runtime.Object) field.ErrorList
	ValidateUpdate       func(obj, old runtime.Object) field.ErrorList
	ValidateStatusUpdate func(obj, old runtime.Object) field.ErrorList

	// PrepareForStatusUpdate, when set, replaces the generic preparation of a /status update
	// (everything but status taken from the stored object, metadata reset as
	// metav1.ResetObjectMetaForStatus does). The apps, batch, autoscaling and policy status
	// strategies only take the spec from the stored object and let metadata change.
	PrepareForStatusUpdate func(ctx context.Context, obj, old runtime.Object)

	// Decorate changes every object on its way out (reads, lists, watch events, the answers to
	// writes): what kube-apiserver's conversion from its internal type adds to the served
	// version and storage does not keep.
	Decorate func(obj runtime.Object)

	// Scale adds the /scale subresource: an autoscaling/v1 Scale view of the replicas.
	Scale *Scale

	// AllowCreateOnUpdate lets PUT create a missing object (endpoints, events, leases...).
	AllowCreateOnUpdate bool
	// ConditionalUpdatesOnly rejects updates that do not name the resourceVersion they replace
	// (a strategy whose AllowUnconditionalUpdate is false: poddisruptionbudgets).
	ConditionalUpdatesOnly bool
	// GarbageCollectionPolicy is what a delete does with dependents when the request does not
	// say: rest.DeleteDependents when empty. Some v1 resources keep their historical default
	// (replicationcontrollers and jobs orphan their pods; events do not take part).
	GarbageCollectionPolicy rest.GarbageCollectionPolicy
	// OrphanWarning is the warning a delete gets when it does not say what to do with dependents
	// and the GarbageCollectionPolicy orphans them (jobs).
	OrphanWarning string
	// ReturnDeletedObject answers a delete with the deleted object rather than a Status (as the
	// resource.k8s.io resources but DeviceTaintRules do). A resource with CheckGracefulDelete
	// always does.
	ReturnDeletedObject bool
	// CheckGracefulDelete decides the grace period of a delete (pods); nil means delete at once.
	CheckGracefulDelete func(ctx context.Context, obj runtime.Object, options *metav1.DeleteOptions) bool
	// ShouldDeleteDuringUpdate replaces the store's rule for when an update of an object being
	// deleted removes it (namespaces: when spec.finalizers, not metadata.finalizers, are empty).
	ShouldDeleteDuringUpdate func(ctx context.Context, key string, obj, existing runtime.Object) bool
	// TTLSeconds expires objects after they were last written (events: 1h, kube's --event-ttl).
	TTLSeconds uint64
}

// WithTTL is a copy of d whose objects expire ttl after their last write (whole seconds); a
// ttl of 0 returns d unchanged. For the one setting a chain may change in its resource table:
// the Events' TTL (--event-ttl).
func (d *Definition) WithTTL(ttl time.Duration) *Definition {
	if ttl <= 0 {
		return d
	}
	c := *d
	c.TTLSeconds = uint64(ttl / time.Second)
	return &c
}

// Check adapts a typed validation function, like pods.ValidatePod, to a Definition hook.
func Check[T runtime.Object](f func(T) field.ErrorList) func(runtime.Object) field.ErrorList {
	return func(obj runtime.Object) field.ErrorList { return f(obj.(T)) }
}

// CheckUpdate adapts a typed update validation function, like pods.ValidatePodUpdate.
func CheckUpdate[T runtime.Object](f func(obj, old T) field.ErrorList) func(obj, old runtime.Object) field.ErrorList {
	return func(obj, old runtime.Object) field.ErrorList { return f(obj.(T), old.(T)) }
}

// FieldsOf adapts a typed field-set function to a Definition's Fields hook.
func FieldsOf[T runtime.Object](f func(T) fields.Set) func(runtime.Object) fields.Set {
	return func(obj runtime.Object) fields.Set { return f(obj.(T)) }
}
