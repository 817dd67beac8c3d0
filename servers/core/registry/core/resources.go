package core

import (
	"context"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/apichain/apichain/servers/core/printers"
	"github.com/apichain/apichain/servers/core/resource"
	corevalidation "github.com/apichain/apichain/servers/core/validation/core"
)

// The plain resources of the core group: the generic store with their names, columns,
// selectors and validation, as kubernetes pkg/registry/core/<resource>/strategy.go declare them.

var configMaps = &resource.Definition{
	Resource: "configmaps", Singular: "configmap", Namespaced: true,
	New:            func() runtime.Object { return &corev1.ConfigMap{} },
	NewList:        func() runtime.Object { return &corev1.ConfigMapList{} },
	ShortNames:     []string{"cm"},
	Table:          printers.ConfigMap,
	Validate:       resource.Check(corevalidation.ValidateConfigMap),
	ValidateUpdate: resource.CheckUpdate(corevalidation.ValidateConfigMapUpdate),
}

var secrets = &resource.Definition{
	Resource: "secrets", Singular: "secret", Namespaced: true,
	New:            func() runtime.Object { return &corev1.Secret{} },
	NewList:        func() runtime.Object { return &corev1.SecretList{} },
	Table:          printers.Secret,
	FieldSelectors: []string{"type"},
	Fields: resource.FieldsOf(func(s *corev1.Secret) fields.Set {
		return fields.Set{"type": string(s.Type)}
	}),
	PrepareForCreate: func(ctx context.Context, obj runtime.Object) { mergeStringData(obj.(*corev1.Secret)) },
	PrepareForUpdate: func(ctx context.Context, obj, old runtime.Object) { mergeStringData(obj.(*corev1.Secret)) },
	Validate:         resource.Check(corevalidation.ValidateSecret),
	ValidateUpdate:   resource.CheckUpdate(corevalidation.ValidateSecretUpdate),
}

// mergeStringData does what kube-apiserver's conversion to its internal Secret does: stringData
// is write-only, merged into data (and winning over it), and never stored.
func mergeStringData(s *corev1.Secret) {
	if len(s.StringData) > 0 && s.Data == nil {
		s.Data = map[string][]byte{}
	}
	for k, v := range s.StringData {
		s.Data[k] = []byte(v)
	}
	s.StringData = nil
}

var serviceAccounts = &resource.Definition{
	Resource: "serviceaccounts", Singular: "serviceaccount", Namespaced: true,
	New:            func() runtime.Object { return &corev1.ServiceAccount{} },
	NewList:        func() runtime.Object { return &corev1.ServiceAccountList{} },
	ShortNames:     []string{"sa"},
	Table:          printers.ServiceAccount,
	Validate:       resource.Check(corevalidation.ValidateServiceAccount),
	ValidateUpdate: resource.CheckUpdate(corevalidation.ValidateServiceAccountUpdate),
}

var events = &resource.Definition{
	Resource: "events", Singular: "event", Namespaced: true,
	New:                 func() runtime.Object { return &corev1.Event{} },
	NewList:             func() runtime.Object { return &corev1.EventList{} },
	ShortNames:          []string{"ev"},
	Table:               printers.Event,
	AllowCreateOnUpdate: true,
	TTLSeconds:          3600, // kube-apiserver's --event-ttl default
	FieldSelectors: []string{"involvedObject.kind", "involvedObject.namespace", "involvedObject.name",
		"involvedObject.uid", "involvedObject.apiVersion", "involvedObject.resourceVersion",
		"involvedObject.fieldPath", "reason", "reportingComponent", "source", "type"},
	Fields: resource.FieldsOf(func(e *corev1.Event) fields.Set {
		source := e.Source.Component
		if source == "" {
			source = e.ReportingController
		}
		return fields.Set{
			"involvedObject.kind":            e.InvolvedObject.Kind,
			"involvedObject.namespace":       e.InvolvedObject.Namespace,
			"involvedObject.name":            e.InvolvedObject.Name,
			"involvedObject.uid":             string(e.InvolvedObject.UID),
			"involvedObject.apiVersion":      e.InvolvedObject.APIVersion,
			"involvedObject.resourceVersion": e.InvolvedObject.ResourceVersion,
			"involvedObject.fieldPath":       e.InvolvedObject.FieldPath,
			"reason":                         e.Reason,
			"reportingComponent":             e.ReportingController,
			"source":                         source,
			"type":                           e.Type,
		}
	}),
	Validate:       resource.Check(corevalidation.ValidateEvent),
	ValidateUpdate: resource.CheckUpdate(corevalidation.ValidateEventUpdate),
}

var endpoints = &resource.Definition{
	Resource: "endpoints", Singular: "endpoints", Namespaced: true,
	New:                 func() runtime.Object { return &corev1.Endpoints{} },
	NewList:             func() runtime.Object { return &corev1.EndpointsList{} },
	ShortNames:          []string{"ep"},
	Table:               printers.Endpoints,
	AllowCreateOnUpdate: true,
	Validate:            resource.Check(corevalidation.ValidateEndpoints),
	ValidateUpdate:      resource.CheckUpdate(corevalidation.ValidateEndpointsUpdate),
}

var nodes = &resource.Definition{
	Resource: "nodes", Singular: "node",
	New:                func() runtime.Object { return &corev1.Node{} },
	NewList:            func() runtime.Object { return &corev1.NodeList{} },
	ShortNames:         []string{"no"},
	Table:              printers.Node,
	Status:             true,
	KeepStatusOnCreate: true, // the kubelet registers its node with a status
	FieldSelectors:     []string{"spec.unschedulable"},
	Fields: resource.FieldsOf(func(n *corev1.Node) fields.Set {
		return fields.Set{"spec.unschedulable": strings.ToLower(boolString(n.Spec.Unschedulable))}
	}),
	PrepareForCreate: func(ctx context.Context, obj runtime.Object) {
		n := obj.(*corev1.Node)
		n.Spec.ConfigSource = nil // dynamic kubelet config is gone; kube-apiserver drops these
		n.Status.Config = nil
		n.Spec.PodPreemptionPolicy = nil // InPlacePodVerticalScalingSchedulerPreemption is alpha, off
		syncPodCIDR(n)
	},
	PrepareForUpdate: func(ctx context.Context, obj, old runtime.Object) {
		n, o := obj.(*corev1.Node), old.(*corev1.Node)
		// Kept only where they are already in use.
		if o.Spec.PodPreemptionPolicy == nil {
			n.Spec.PodPreemptionPolicy = nil
		}
		if o.Spec.ConfigSource == nil {
			n.Spec.ConfigSource = nil
		}
		syncPodCIDR(n)
	},
	// As the generic status preparation (the stored spec, the metadata a status writer may
	// change), and status.config kept only where it is already in use.
	PrepareForStatusUpdate: func(ctx context.Context, obj, old runtime.Object) {
		n, o := obj.(*corev1.Node), old.(*corev1.Node)
		n.Spec = o.Spec
		metav1.ResetObjectMetaForStatus(n, o)
		if o.Status.Config == nil {
			n.Status.Config = nil
		}
	},
	Validate:             resource.Check(corevalidation.ValidateNode),
	ValidateUpdate:       resource.CheckUpdate(corevalidation.ValidateNodeUpdate),
	ValidateStatusUpdate: resource.CheckUpdate(corevalidation.ValidateNodeStatusUpdate),
}

// syncPodCIDR does what kube-apiserver's conversion of a Node to its internal type and back
// does: the pod ranges live in podCIDRs, and podCIDR, the older single field, is its first
// entry (a node sent with podCIDR alone gets podCIDRs, and is validated there).
func syncPodCIDR(n *corev1.Node) {
	if len(n.Spec.PodCIDRs) == 0 && n.Spec.PodCIDR != "" {
		n.Spec.PodCIDRs = []string{n.Spec.PodCIDR}
	}
	if len(n.Spec.PodCIDRs) > 0 {
		n.Spec.PodCIDR = n.Spec.PodCIDRs[0]
	}
}

func boolString(b bool) string {
	if b {
		return "true"
	}
	return "false"
}
