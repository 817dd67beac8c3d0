package admission

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apiserver/pkg/admission"
	schedulingv1listers "k8s.io/client-go/listers/scheduling/v1"
)

// PriorityPluginName is kube-apiserver's name for the plugin.
const PriorityPluginName = "Priority"

// Priority turns a new pod's priorityClassName (none: the cluster's default class) into its
// spec.priority and spec.preemptionPolicy, which a user may not set to anything else, and
// keeps a second PriorityClass from becoming the global default: kube-apiserver's Priority
// plugin, without the PodGroups the chain does not serve.
type Priority struct {
	*admission.Handler
	classes schedulingv1listers.PriorityClassLister
}

var (
	_ admission.MutationInterface   = &Priority{}
	_ admission.ValidationInterface = &Priority{}
)

// NewPriority returns the plugin, reading PriorityClasses from classes.
func NewPriority(classes schedulingv1listers.PriorityClassLister) *Priority {
	return &Priority{Handler: admission.NewHandler(admission.Create, admission.Update), classes: classes}
}

// Admit resolves a new pod's priority; an updated pod keeps the one it has.
func (p *Priority) Admit(_ context.Context, a admission.Attributes, _ admission.ObjectInterfaces) error {
	if !isResource(a, corev1.Resource("pods")) {
		return nil
	}
	pod, ok := a.GetObject().(*corev1.Pod)
	if !ok {
		return apierrors.NewBadRequest("resource was marked with kind Pod but was unable to be converted")
	}
	if a.GetOperation() == admission.Update {
		old, ok := a.GetOldObject().(*corev1.Pod)
		if !ok {
			return apierrors.NewBadRequest("resource was marked with kind Pod but was unable to be converted")
		}
		// An update that leaves them out keeps what create set; validation refuses changes.
		pod.Spec.Priority = firstSet(pod.Spec.Priority, old.Spec.Priority)
		pod.Spec.PreemptionPolicy = firstSet(pod.Spec.PreemptionPolicy, old.Spec.PreemptionPolicy)
		return nil
	}

	class, err := p.classOf(a, pod.Spec.PriorityClassName)
	if err != nil {
		return err
	}
	spec := &pod.Spec
	if spec.Priority != nil && *spec.Priority != class.Value {
		return admission.NewForbidden(a, fmt.Errorf("the integer value of priority (%d) must not be provided in pod spec; "+
			"priority admission controller computed %d from the given PriorityClass name", *spec.Priority, class.Value))
	}
	if policy := class.PreemptionPolicy; policy != nil && spec.PreemptionPolicy != nil && *spec.PreemptionPolicy != *policy {
		return admission.NewForbidden(a, fmt.Errorf("the string value of PreemptionPolicy (%s) must not be provided in pod spec; "+
			"priority admission controller computed %s from the given PriorityClass name", *spec.PreemptionPolicy, *policy))
	}
	value := class.Value
	spec.PriorityClassName, spec.Priority = class.Name, &value
	if class.PreemptionPolicy != nil {
		policy := *class.PreemptionPolicy
		spec.PreemptionPolicy = &policy
	}
	return nil
}

// classOf is the class a pod of class name gets: that class, or for none the global default,
// or for no default one without a name, of priority 0, that preempts lower priorities.
func (p *Priority) classOf(a admission.Attributes, name string) (*schedulingv1.PriorityClass, error) {
	if name != "" {
		class, err := p.classes.Get(name)
		switch {
		case apierrors.IsNotFound(err):
			return nil, admission.NewForbidden(a, fmt.Errorf("no PriorityClass with name %v was found", name))
		case err != nil:
			return nil, fmt.Errorf("failed to resolve PriorityClass with name %s: %w", name, err)
		}
		return class, nil
	}
	def, err := p.globalDefault()
	if err != nil {
		return nil, fmt.Errorf("error occurred while retrieving default priority class: %w", err)
	}
	if def == nil {
		lower := corev1.PreemptLowerPriority
		def = &schedulingv1.PriorityClass{PreemptionPolicy: &lower}
	}
	return def, nil
}

// Validate lets a PriorityClass be the global default only if no other one is.
func (p *Priority) Validate(_ context.Context, a admission.Attributes, _ admission.ObjectInterfaces) error {
	if !isResource(a, schedulingv1.Resource("priorityclasses")) {
		return nil
	}
	class, ok := a.GetObject().(*schedulingv1.PriorityClass)
	if !ok {
		return apierrors.NewBadRequest("resource was marked with kind PriorityClass but was unable to be converted")
	}
	if !class.GlobalDefault {
		return nil
	}
	def, err := p.globalDefault()
	if err != nil {
		return fmt.Errorf("failed to get default priority class: %v", err)
	}
	if def != nil && (a.GetOperation() == admission.Create || def.Name != class.Name) {
		return admission.NewForbidden(a, fmt.Errorf("PriorityClass %v is already marked as default. Only one default can exist", def.Name))
	}
	return nil
}

// globalDefault is the class marked globalDefault; nil for none, and of several (two
// API servers raced) the one of lowest value.
func (p *Priority) globalDefault() (*schedulingv1.PriorityClass, error) {
	classes, err := p.classes.List(labels.Everything())
	if err != nil {
		return nil, err
	}
	var def *schedulingv1.PriorityClass
	for _, c := range classes {
		if c.GlobalDefault && (def == nil || c.Value < def.Value) {
			def = c
		}
	}
	return def, nil
}

// firstSet is the first of values that is not nil.
func firstSet[T any](values ...*T) *T {
	for _, v := range values {
		if v != nil {
			return v
		}
	}
	return nil
}
