// Package apps is the apps API group of the Core server, following kubernetes
// pkg/registry/apps: deployments, replicasets and statefulsets (with their status and scale
// subresources), daemonsets (with status) and controllerrevisions, in apps/v1.
package apps

import (
	"context"
	"slices"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/apichain/apichain/servers/core/printers"
	"github.com/apichain/apichain/servers/core/registry"
	"github.com/apichain/apichain/servers/core/resource"
	validation "github.com/apichain/apichain/servers/core/validation/apps"
)

// definitions are the group's resources, each declared once.
var definitions = []*resource.Definition{deployments, replicaSets, statefulSets, daemonSets, controllerRevisions}

// Group is the apps group: its types, field selectors and storage.
func Group() registry.Group {
	return registry.Group{GroupVersion: appsv1.SchemeGroupVersion, AddTypes: appsv1.AddToScheme, Definitions: definitions}
}

// deployments follows pkg/registry/apps/deployment (strategy.go, storage/storage.go). The
// deployments/rollback subresource serves only the extensions/v1beta1 and apps/v1beta1
// DeploymentRollback, which kube-apiserver v1.37 no longer serves either.
var deployments = &resource.Definition{
	Resource: "deployments", Singular: "deployment", Namespaced: true,
	New:        func() runtime.Object { return &appsv1.Deployment{} },
	NewList:    func() runtime.Object { return &appsv1.DeploymentList{} },
	ShortNames: []string{"deploy"},
	Categories: []string{"all"},
	Table:      printers.Deployment,
	Status:     true,
	Generation: true,
	PrepareForUpdate: func(ctx context.Context, obj, old runtime.Object) {
		// Annotation updates bump the generation too, because annotations are copied from
		// deployments to their replica sets.
		d, o := obj.(*appsv1.Deployment), old.(*appsv1.Deployment)
		if d.Generation == o.Generation && !apiequality.Semantic.DeepEqual(d.Annotations, o.Annotations) {
			d.Generation = o.Generation + 1
		}
	},
	PrepareForStatusUpdate: func(ctx context.Context, obj, old runtime.Object) {
		d, o := obj.(*appsv1.Deployment), old.(*appsv1.Deployment)
		d.Spec = o.Spec
		d.Labels = o.Labels
	},
	Scale: &resource.Scale{
		Replicas: func(obj runtime.Object) (int32, int32, string, error) {
			d := obj.(*appsv1.Deployment)
			return replicasAndSelector(d.Spec.Replicas, d.Status.Replicas, d.Spec.Selector)
		},
		SetReplicas: func(obj runtime.Object, n int32) { obj.(*appsv1.Deployment).Spec.Replicas = &n },
	},
	Validate:             resource.Check(validation.ValidateDeployment),
	ValidateUpdate:       resource.CheckUpdate(validation.ValidateDeploymentUpdate),
	ValidateStatusUpdate: resource.CheckUpdate(validation.ValidateDeploymentStatusUpdate),
}

// replicaSets follows pkg/registry/apps/replicaset.
var replicaSets = &resource.Definition{
	Resource: "replicasets", Singular: "replicaset", Namespaced: true,
	New:            func() runtime.Object { return &appsv1.ReplicaSet{} },
	NewList:        func() runtime.Object { return &appsv1.ReplicaSetList{} },
	ShortNames:     []string{"rs"},
	Categories:     []string{"all"},
	Table:          printers.ReplicaSet,
	Status:         true,
	Generation:     true,
	FieldSelectors: []string{"status.replicas"},
	Fields: resource.FieldsOf(func(rs *appsv1.ReplicaSet) fields.Set {
		return fields.Set{"status.replicas": strconv.Itoa(int(rs.Status.Replicas))}
	}),
	PrepareForStatusUpdate: func(ctx context.Context, obj, old runtime.Object) {
		obj.(*appsv1.ReplicaSet).Spec = old.(*appsv1.ReplicaSet).Spec
	},
	Scale: &resource.Scale{
		Replicas: func(obj runtime.Object) (int32, int32, string, error) {
			rs := obj.(*appsv1.ReplicaSet)
			return replicasAndSelector(rs.Spec.Replicas, rs.Status.Replicas, rs.Spec.Selector)
		},
		SetReplicas: func(obj runtime.Object, n int32) { obj.(*appsv1.ReplicaSet).Spec.Replicas = &n },
	},
	Validate:             resource.Check(validation.ValidateReplicaSet),
	ValidateUpdate:       resource.CheckUpdate(validation.ValidateReplicaSetUpdate),
	ValidateStatusUpdate: resource.CheckUpdate(validation.ValidateReplicaSetStatusUpdate),
}

// statefulSets follows pkg/registry/apps/statefulset.
var statefulSets = &resource.Definition{
	Resource: "statefulsets", Singular: "statefulset", Namespaced: true,
	New:        func() runtime.Object { return &appsv1.StatefulSet{} },
	NewList:    func() runtime.Object { return &appsv1.StatefulSetList{} },
	ShortNames: []string{"sts"},
	Categories: []string{"all"},
	Table:      printers.StatefulSet,
	Status:     true,
	// The generation is counted here rather than generically: the spec is compared once the
	// volume claim templates' apiVersion and kind are cleared, as upstream's internal type has them.
	PrepareForCreate: func(ctx context.Context, obj runtime.Object) {
		sts := obj.(*appsv1.StatefulSet)
		sts.Generation = 1
		setVolumeClaimTemplateTypes(sts, "", "")
	},
	PrepareForUpdate: func(ctx context.Context, obj, old runtime.Object) {
		sts, oldSTS := obj.(*appsv1.StatefulSet), old.(*appsv1.StatefulSet)
		// Both sides, so that a set stored with the types (as an earlier version of the chain
		// could store it) still compares equal and stays updatable.
		setVolumeClaimTemplateTypes(sts, "", "")
		setVolumeClaimTemplateTypes(oldSTS, "", "")
		if !apiequality.Semantic.DeepEqual(sts.Spec, oldSTS.Spec) {
			sts.Generation = oldSTS.Generation + 1
		}
	},
	// pkg/apis/apps/v1 Convert_apps_StatefulSetSpec_To_v1_StatefulSetSpec: volume claim
	// templates are served with apiVersion v1 and kind PersistentVolumeClaim.
	Decorate: func(obj runtime.Object) {
		setVolumeClaimTemplateTypes(obj.(*appsv1.StatefulSet), "v1", "PersistentVolumeClaim")
	},
	PrepareForStatusUpdate: func(ctx context.Context, obj, old runtime.Object) {
		sts := obj.(*appsv1.StatefulSet)
		sts.Spec = old.(*appsv1.StatefulSet).Spec
		setVolumeClaimTemplateTypes(sts, "", "")
	},
	Scale: &resource.Scale{
		Replicas: func(obj runtime.Object) (int32, int32, string, error) {
			sts := obj.(*appsv1.StatefulSet)
			return replicasAndSelector(sts.Spec.Replicas, sts.Status.Replicas, sts.Spec.Selector)
		},
		SetReplicas: func(obj runtime.Object, n int32) { obj.(*appsv1.StatefulSet).Spec.Replicas = &n },
	},
	Validate:             resource.Check(validation.ValidateStatefulSet),
	ValidateUpdate:       resource.CheckUpdate(validation.ValidateStatefulSetUpdate),
	ValidateStatusUpdate: resource.CheckUpdate(validation.ValidateStatefulSetStatusUpdate),
}

// setVolumeClaimTemplateTypes sets the apiVersion and kind of a StatefulSet's volume claim
// templates. It writes to a copy of the slice: an object read through the watch cache shares
// its slices with the cached one (and a watch event's object is the cached one), which must
// keep the types cleared, or the next update would store them and then find them changed.
func setVolumeClaimTemplateTypes(sts *appsv1.StatefulSet, apiVersion, kind string) {
	sts.Spec.VolumeClaimTemplates = slices.Clone(sts.Spec.VolumeClaimTemplates)
	for i := range sts.Spec.VolumeClaimTemplates {
		sts.Spec.VolumeClaimTemplates[i].APIVersion = apiVersion
		sts.Spec.VolumeClaimTemplates[i].Kind = kind
	}
}

// daemonSets follows pkg/registry/apps/daemonset. Its spec.templateGeneration is, in apps/v1,
// the deprecated.daemonset.template.generation annotation.
var daemonSets = &resource.Definition{
	Resource: "daemonsets", Singular: "daemonset", Namespaced: true,
	New:        func() runtime.Object { return &appsv1.DaemonSet{} },
	NewList:    func() runtime.Object { return &appsv1.DaemonSetList{} },
	ShortNames: []string{"ds"},
	Categories: []string{"all"},
	Table:      printers.DaemonSet,
	Status:     true,
	PrepareForCreate: func(ctx context.Context, obj runtime.Object) {
		ds := obj.(*appsv1.DaemonSet)
		ds.Generation = 1
		setTemplateGeneration(ds, max(validation.TemplateGeneration(ds), 1))
	},
	PrepareForUpdate: func(ctx context.Context, obj, old runtime.Object) {
		ds, oldDS := obj.(*appsv1.DaemonSet), old.(*appsv1.DaemonSet)
		// update is not allowed to set TemplateGeneration
		oldGeneration := validation.TemplateGeneration(oldDS)
		setTemplateGeneration(ds, oldGeneration)
		// Any changes to the spec increment the generation number; template changes the
		// template generation too.
		if !apiequality.Semantic.DeepEqual(oldDS.Spec.Template, ds.Spec.Template) {
			setTemplateGeneration(ds, oldGeneration+1)
			ds.Generation = oldDS.Generation + 1
			return
		}
		if !apiequality.Semantic.DeepEqual(oldDS.Spec, ds.Spec) {
			ds.Generation = oldDS.Generation + 1
		}
	},
	PrepareForStatusUpdate: func(ctx context.Context, obj, old runtime.Object) {
		ds, oldDS := obj.(*appsv1.DaemonSet), old.(*appsv1.DaemonSet)
		ds.Spec = oldDS.Spec
		setTemplateGeneration(ds, validation.TemplateGeneration(oldDS)) // part of the spec upstream
	},
	Validate:             resource.Check(validation.ValidateDaemonSet),
	ValidateUpdate:       resource.CheckUpdate(validation.ValidateDaemonSetUpdate),
	ValidateStatusUpdate: resource.CheckUpdate(validation.ValidateDaemonSetStatusUpdate),
}

func setTemplateGeneration(ds *appsv1.DaemonSet, generation int64) {
	if ds.Annotations == nil {
		ds.Annotations = map[string]string{}
	}
	ds.Annotations[appsv1.DeprecatedTemplateGeneration] = strconv.FormatInt(generation, 10)
}

// controllerRevisions follows pkg/registry/apps/controllerrevision: no status, no generation.
var controllerRevisions = &resource.Definition{
	Resource: "controllerrevisions", Singular: "controllerrevision", Namespaced: true,
	New:            func() runtime.Object { return &appsv1.ControllerRevision{} },
	NewList:        func() runtime.Object { return &appsv1.ControllerRevisionList{} },
	Table:          printers.ControllerRevision,
	Validate:       resource.Check(validation.ValidateControllerRevision),
	ValidateUpdate: resource.CheckUpdate(validation.ValidateControllerRevisionUpdate),
}

// replicasAndSelector is what the apps ScaleREST types show: spec.replicas, status.replicas and
// the selector as a string; a selector that does not convert is an error.
func replicasAndSelector(spec *int32, status int32, selector *metav1.LabelSelector) (int32, int32, string, error) {
	s, err := metav1.LabelSelectorAsSelector(selector)
	if err != nil {
		return 0, 0, "", err
	}
	return ptr.Deref(spec, 0), status, s.String(), nil
}
