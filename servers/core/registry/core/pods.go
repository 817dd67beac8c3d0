package core

import (
	"context"
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/storage"
	storeerr "k8s.io/apiserver/pkg/storage/errors"
	"k8s.io/apiserver/pkg/util/dryrun"

	"github.com/apichain/apichain/servers/core/printers"
	"github.com/apichain/apichain/servers/core/resource"
	podvalidation "github.com/apichain/apichain/servers/core/validation/pods"
)

// pods follows kubernetes pkg/registry/core/pod (strategy.go, storage/storage.go).
var pods = &resource.Definition{
	Resource: "pods", Singular: "pod", Namespaced: true,
	New:        func() runtime.Object { return &corev1.Pod{} },
	NewList:    func() runtime.Object { return &corev1.PodList{} },
	ShortNames: []string{"po"},
	Categories: []string{"all"},
	Table:      printers.Pod,
	Status:     true,
	Generation: true,
	FieldSelectors: []string{"spec.nodeName", "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName",
		"spec.hostNetwork", "status.phase", "status.podIP", "status.podIPs", "status.nominatedNodeName"},
	Fields: resource.FieldsOf(func(pod *corev1.Pod) fields.Set {
		podIP := ""
		if len(pod.Status.PodIPs) > 0 {
			podIP = pod.Status.PodIPs[0].IP
		}
		return fields.Set{
			"spec.nodeName":            pod.Spec.NodeName,
			"spec.restartPolicy":       string(pod.Spec.RestartPolicy),
			"spec.schedulerName":       pod.Spec.SchedulerName,
			"spec.serviceAccountName":  pod.Spec.ServiceAccountName,
			"spec.hostNetwork":         strconv.FormatBool(pod.Spec.HostNetwork),
			"status.phase":             string(pod.Status.Phase),
			"status.podIP":             podIP,
			"status.nominatedNodeName": pod.Status.NominatedNodeName,
		}
	}),
	PrepareForCreate: func(ctx context.Context, obj runtime.Object) {
		pod := obj.(*corev1.Pod)
		pod.Status = corev1.PodStatus{Phase: corev1.PodPending, QOSClass: computePodQOS(pod)}
	},
	Validate:             resource.Check(podvalidation.ValidatePod),
	ValidateUpdate:       resource.CheckUpdate(podvalidation.ValidatePodUpdate),
	ValidateStatusUpdate: resource.CheckUpdate(podvalidation.ValidatePodStatusUpdate),
	CheckGracefulDelete:  podGracefulDelete,
}

// podGracefulDelete gives a bound, running pod its termination grace period (the kubelet then
// finishes the delete); unscheduled or finished pods go at once.
func podGracefulDelete(ctx context.Context, obj runtime.Object, options *metav1.DeleteOptions) bool {
	if options == nil {
		return false
	}
	pod := obj.(*corev1.Pod)
	period := int64(0)
	if options.GracePeriodSeconds != nil {
		period = *options.GracePeriodSeconds
	} else if pod.Spec.TerminationGracePeriodSeconds != nil {
		period = *pod.Spec.TerminationGracePeriodSeconds
	}
	if pod.Spec.NodeName == "" || pod.Status.Phase == corev1.PodFailed || pod.Status.Phase == corev1.PodSucceeded {
		period = 0
	}
	if period < 0 {
		period = 1
	}
	options.GracePeriodSeconds = &period
	return true
}

// computePodQOS follows kubernetes pkg/apis/core/v1/helper/qos (pod-level resources aside).
func computePodQOS(pod *corev1.Pod) corev1.PodQOSClass {
	var podQOS corev1.PodQOSClass
	containers := append(append([]corev1.Container{}, pod.Spec.InitContainers...), pod.Spec.Containers...)
	for i := range containers {
		c := requirementsQOS(&containers[i].Resources)
		switch {
		case c == corev1.PodQOSBurstable:
			return c
		case podQOS == "":
			podQOS = c
		case podQOS != c:
			return corev1.PodQOSBurstable
		}
	}
	if podQOS == "" {
		return corev1.PodQOSBestEffort
	}
	return podQOS
}

func requirementsQOS(r *corev1.ResourceRequirements) corev1.PodQOSClass {
	if len(r.Requests) == 0 && len(r.Limits) == 0 {
		return corev1.PodQOSBestEffort
	}
	var qos corev1.PodQOSClass
	for _, name := range sets.List(sets.New(corev1.ResourceCPU, corev1.ResourceMemory)) {
		req, lim := r.Requests[name], r.Limits[name]
		var q corev1.PodQOSClass
		switch {
		case !req.Equal(lim):
			return corev1.PodQOSBurstable
		case req.IsZero():
			q = corev1.PodQOSBestEffort
		default:
			q = corev1.PodQOSGuaranteed
		}
		if qos == "" {
			qos = q
		} else if qos != q {
			return corev1.PodQOSBurstable
		}
	}
	return qos
}

// BindingREST serves pods/binding: the scheduler's way to assign a pod to a node.
type BindingREST struct {
	store *registry.Store
}

var (
	_ rest.NamedCreater = &BindingREST{}
	_ rest.Creater      = &LegacyBindingREST{}
)

// NamespaceScoped implements rest.Scoper.
func (r *BindingREST) NamespaceScoped() bool { return true }

// New implements rest.Storage.
func (r *BindingREST) New() runtime.Object { return &corev1.Binding{} }

// Destroy implements rest.Storage; the pod store owns the storage.
func (r *BindingREST) Destroy() {}

// PreserveRequestObjectMetaSystemFieldsOnSubresourceCreate keeps the Binding's UID and
// resourceVersion: they are preconditions on the pod.
func (r *BindingREST) PreserveRequestObjectMetaSystemFieldsOnSubresourceCreate() bool { return true }

// Create binds the pod named in the URL to binding.Target.Name.
func (r *BindingREST) Create(ctx context.Context, name string, obj runtime.Object, createValidation rest.ValidateObjectFunc, options *metav1.CreateOptions) (runtime.Object, error) {
	binding, ok := obj.(*corev1.Binding)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("not a Binding object: %T", obj))
	}
	if name != binding.Name {
		return nil, apierrors.NewBadRequest("name in URL does not match name in Binding object")
	}
	if errs := podvalidation.ValidateBinding(binding); len(errs) != 0 {
		// kube-apiserver returns these as an internal error; a 422 says what is wrong.
		return nil, apierrors.NewInvalid(corev1.SchemeGroupVersion.WithKind("Binding").GroupKind(), binding.Name, errs)
	}
	if createValidation != nil {
		if err := createValidation(ctx, binding.DeepCopyObject()); err != nil {
			return nil, err
		}
	}
	if err := r.assign(ctx, binding, dryrun.IsDryRun(options.DryRun)); err != nil {
		return nil, err
	}
	return &metav1.Status{Status: metav1.StatusSuccess}, nil
}

func (r *BindingREST) assign(ctx context.Context, binding *corev1.Binding, dryRun bool) error {
	key, err := r.store.KeyFunc(ctx, binding.Name)
	if err != nil {
		return err
	}
	var preconditions *storage.Preconditions
	if binding.UID != "" || binding.ResourceVersion != "" {
		preconditions = &storage.Preconditions{}
		if binding.UID != "" {
			uid := types.UID(binding.UID)
			preconditions.UID = &uid
		}
		if binding.ResourceVersion != "" {
			preconditions.ResourceVersion = &binding.ResourceVersion
		}
	}
	err = r.store.Storage.GuaranteedUpdate(ctx, key, &corev1.Pod{}, false, preconditions, storage.SimpleUpdate(func(obj runtime.Object) (runtime.Object, error) {
		pod := obj.(*corev1.Pod)
		switch {
		case pod.DeletionTimestamp != nil:
			return nil, fmt.Errorf("pod %s is being deleted, cannot be assigned to a host", pod.Name)
		case pod.Spec.NodeName != "":
			return nil, fmt.Errorf("pod %v is already assigned to node %q", pod.Name, pod.Spec.NodeName)
		case len(pod.Spec.SchedulingGates) != 0:
			return nil, fmt.Errorf("pod %v has non-empty .spec.schedulingGates", pod.Name)
		}
		pod.Spec.NodeName = binding.Target.Name
		pod.Status.NominatedNodeName = ""
		if pod.Annotations == nil {
			pod.Annotations = map[string]string{}
		}
		for k, v := range binding.Annotations {
			pod.Annotations[k] = v
		}
		for k, v := range binding.Labels {
			if pod.Labels == nil {
				pod.Labels = map[string]string{}
			}
			pod.Labels[k] = v
		}
		setPodCondition(&pod.Status, corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionTrue})
		return pod, nil
	}), dryRun, nil)
	if err != nil {
		err = storeerr.InterpretGetError(err, corev1.Resource("pods"), binding.Name)
		err = storeerr.InterpretUpdateError(err, corev1.Resource("pods"), binding.Name)
		if _, ok := err.(*apierrors.StatusError); !ok {
			err = apierrors.NewConflict(corev1.Resource("pods/binding"), binding.Name, err)
		}
	}
	return err
}

// setPodCondition adds or updates a condition, moving its transition time only when the status
// changes (kubernetes pkg/api/v1/pod UpdatePodCondition).
func setPodCondition(status *corev1.PodStatus, c corev1.PodCondition) {
	c.LastTransitionTime = metav1.Now()
	for i := range status.Conditions {
		if status.Conditions[i].Type != c.Type {
			continue
		}
		if status.Conditions[i].Status == c.Status {
			c.LastTransitionTime = status.Conditions[i].LastTransitionTime
		}
		status.Conditions[i] = c
		return
	}
	status.Conditions = append(status.Conditions, c)
}

// LegacyBindingREST serves the top-level bindings resource (POST /namespaces/<ns>/bindings),
// the older form of pods/binding.
type LegacyBindingREST struct {
	binding *BindingREST
}

// NamespaceScoped implements rest.Scoper.
func (r *LegacyBindingREST) NamespaceScoped() bool { return true }

// New implements rest.Storage.
func (r *LegacyBindingREST) New() runtime.Object { return &corev1.Binding{} }

// Destroy implements rest.Storage.
func (r *LegacyBindingREST) Destroy() {}

// GetSingularName implements rest.SingularNameProvider.
func (r *LegacyBindingREST) GetSingularName() string { return "binding" }

// Create binds the pod that the Binding names.
func (r *LegacyBindingREST) Create(ctx context.Context, obj runtime.Object, createValidation rest.ValidateObjectFunc, options *metav1.CreateOptions) (runtime.Object, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("not a Binding object: %T", obj))
	}
	return r.binding.Create(ctx, m.GetName(), obj, createValidation, options)
}
