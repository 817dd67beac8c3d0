// Package batch is the batch API group of the Core server, following kubernetes
// pkg/registry/batch: jobs and cronjobs (each with status) in batch/v1.
package batch

import (
	"context"
	"strconv"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/registry/rest"

	"github.com/apichain/apichain/servers/core/printers"
	"github.com/apichain/apichain/servers/core/registry"
	"github.com/apichain/apichain/servers/core/resource"
	validation "github.com/apichain/apichain/servers/core/validation/batch"
)

// definitions are the group's resources, each declared once.
var definitions = []*resource.Definition{jobs, cronJobs}

// Group is the batch group: its types, field selectors and storage.
func Group() registry.Group {
	return registry.Group{GroupVersion: batchv1.SchemeGroupVersion, AddTypes: batchv1.AddToScheme, Definitions: definitions}
}

// jobs follows pkg/registry/batch/job (strategy.go, storage/storage.go).
var jobs = &resource.Definition{
	Resource: "jobs", Singular: "job", Namespaced: true,
	New:            func() runtime.Object { return &batchv1.Job{} },
	NewList:        func() runtime.Object { return &batchv1.JobList{} },
	Categories:     []string{"all"},
	Table:          printers.Job,
	Status:         true,
	Generation:     true,
	FieldSelectors: []string{"status.successful"},
	Fields: resource.FieldsOf(func(job *batchv1.Job) fields.Set {
		return fields.Set{"status.successful": strconv.Itoa(int(job.Status.Succeeded))}
	}),
	PrepareForCreate: func(ctx context.Context, obj runtime.Object) {
		job := obj.(*batchv1.Job)
		generateSelectorIfNeeded(job)
		dropDisabledJobFields(&job.Spec, nil)
	},
	PrepareForUpdate: func(ctx context.Context, obj, old runtime.Object) {
		dropDisabledJobFields(&obj.(*batchv1.Job).Spec, &old.(*batchv1.Job).Spec)
	},
	PrepareForStatusUpdate: func(ctx context.Context, obj, old runtime.Object) {
		obj.(*batchv1.Job).Spec = old.(*batchv1.Job).Spec
	},
	// batch/v1 keeps orphaning the pods of a deleted job, for backwards compatibility (kubectl
	// asks for background propagation).
	GarbageCollectionPolicy: rest.OrphanDependents,
	OrphanWarning: "child pods are preserved by default when jobs are deleted; " +
		"set propagationPolicy=Background to remove them or set propagationPolicy=Orphan to suppress this warning",
	Validate:             resource.Check(validation.ValidateJob),
	ValidateUpdate:       resource.CheckUpdate(validation.ValidateJobUpdate),
	ValidateStatusUpdate: resource.CheckUpdate(validation.ValidateJobStatusUpdate),
}

// cronJobs follows pkg/registry/batch/cronjob.
var cronJobs = &resource.Definition{
	Resource: "cronjobs", Singular: "cronjob", Namespaced: true,
	New:        func() runtime.Object { return &batchv1.CronJob{} },
	NewList:    func() runtime.Object { return &batchv1.CronJobList{} },
	ShortNames: []string{"cj"},
	Categories: []string{"all"},
	Table:      printers.CronJob,
	Status:     true,
	Generation: true,
	PrepareForCreate: func(ctx context.Context, obj runtime.Object) {
		dropDisabledJobFields(&obj.(*batchv1.CronJob).Spec.JobTemplate.Spec, nil)
	},
	PrepareForUpdate: func(ctx context.Context, obj, old runtime.Object) {
		dropDisabledJobFields(&obj.(*batchv1.CronJob).Spec.JobTemplate.Spec, &old.(*batchv1.CronJob).Spec.JobTemplate.Spec)
	},
	PrepareForStatusUpdate: func(ctx context.Context, obj, old runtime.Object) {
		obj.(*batchv1.CronJob).Spec = old.(*batchv1.CronJob).Spec
	},
	Validate:       resource.Check(validation.ValidateCronJob),
	ValidateUpdate: resource.CheckUpdate(validation.ValidateCronJobUpdate),
	// The cronjob status strategy validates nothing.
}

// dropDisabledJobFields is pkg/api/job DropDisabledFields: spec.scheduling belongs to the alpha
// WorkloadWithJob gate, off in v1.37, and is dropped unless the stored object already has it.
func dropDisabledJobFields(spec, oldSpec *batchv1.JobSpec) {
	if oldSpec != nil && oldSpec.Scheduling != nil {
		return
	}
	spec.Scheduling = nil
}

// generateSelectorIfNeeded is the job strategy's: unless spec.manualSelector, the selector and
// the template labels are generated from the job's name and uid.
func generateSelectorIfNeeded(obj *batchv1.Job) {
	if obj.Spec.ManualSelector == nil || !*obj.Spec.ManualSelector {
		generateSelector(obj)
	}
}

// generateSelector adds a selector to a job and labels to its template which can be used to
// uniquely identify the pods created by that job.
func generateSelector(obj *batchv1.Job) {
	if obj.Spec.Template.Labels == nil {
		obj.Spec.Template.Labels = make(map[string]string)
	}
	// The job-name label is unique except in cases that are expected to be
	// quite uncommon, and is more user friendly than uid.  So, we add it as
	// a label.
	for _, key := range []string{"job-name", batchv1.JobNameLabel} {
		if _, found := obj.Spec.Template.Labels[key]; !found {
			// A label the user set themselves is checked by validation.
			obj.Spec.Template.Labels[key] = obj.Name
		}
	}
	// The controller-uid label makes the pods that belong to this job
	// only match this job.
	for _, key := range []string{"controller-uid", batchv1.ControllerUidLabel} {
		if _, found := obj.Spec.Template.Labels[key]; !found {
			obj.Spec.Template.Labels[key] = string(obj.UID)
		}
	}
	// Select the controller-uid label.  This is sufficient for uniqueness.
	if obj.Spec.Selector == nil {
		obj.Spec.Selector = &metav1.LabelSelector{}
	}
	if obj.Spec.Selector.MatchLabels == nil {
		obj.Spec.Selector.MatchLabels = make(map[string]string)
	}
	if _, found := obj.Spec.Selector.MatchLabels[batchv1.ControllerUidLabel]; !found {
		obj.Spec.Selector.MatchLabels[batchv1.ControllerUidLabel] = string(obj.UID)
	}
	// If the user specified matchLabel controller-uid=$WRONGUID, then it should fail
	// in validation, either because the selector does not match the pod template
	// (controller-uid=$WRONGUID does not match controller-uid=$UID, which we applied
	// above, or we will reject in validation because the template has the wrong
	// labels.
}
