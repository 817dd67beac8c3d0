package admission

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/initializer"
	"k8s.io/client-go/informers"
	schedulingv1listers "k8s.io/client-go/listers/scheduling/v1"
)

// PriorityPluginName is kube's name for the priority plugin.
const PriorityPluginName = "Priority"

// Priority resolves a new pod's priorityClassName (or the global default class) into
// spec.priority and spec.preemptionPolicy, rejects unknown classes, and keeps a second
// PriorityClass from being marked globalDefault (kubernetes
// plugin/pkg/admission/priority/admission.go; PodGroups are not served by the chain).
type Priority struct {
	*admission.Handler
	lister schedulingv1listers.PriorityClassLister
}

var (
	_ admission.MutationInterface                  = &Priority{}
	_ admission.ValidationInterface                = &Priority{}
	_ initializer.WantsExternalKubeInformerFactory = &Priority{}
)

// NewPriority creates the plugin.
func NewPriority() *Priority {
	return &Priority{Handler: admission.NewHandler(admission.Create, admission.Update, admission.Delete)}
}

// SetExternalKubeInformerFactory implements initializer.WantsExternalKubeInformerFactory.
func (p *Priority) SetExternalKubeInformerFactory(f informers.SharedInformerFactory) {
	informer := f.Scheduling().V1().PriorityClasses()
	p.lister = informer.Lister()
	p.SetReadyFunc(informer.Informer().HasSynced)
}

// ValidateInitialization implements admission.InitializationValidator.
func (p *Priority) ValidateInitialization() error {
	if p.lister == nil {
		return fmt.Errorf("%s requires a lister", PriorityPluginName)
	}
	return nil
}

var (
	podResource           = corev1.Resource("pods")
	priorityClassResource = schedulingv1.Resource("priorityclasses")
)

// Admit resolves the priority of pods.
func (p *Priority) Admit(ctx context.Context, a admission.Attributes, o admission.ObjectInterfaces) error {
	if len(a.GetSubresource()) != 0 || a.GetResource().GroupResource() != podResource {
		return nil
	}
	if a.GetOperation() == admission.Create || a.GetOperation() == admission.Update {
		return p.admitPod(a)
	}
	return nil
}

// Validate checks PriorityClasses.
func (p *Priority) Validate(ctx context.Context, a admission.Attributes, o admission.ObjectInterfaces) error {
	if len(a.GetSubresource()) != 0 || a.GetResource().GroupResource() != priorityClassResource {
		return nil
	}
	if a.GetOperation() == admission.Create || a.GetOperation() == admission.Update {
		return p.validatePriorityClass(a)
	}
	return nil
}

func (p *Priority) admitPod(a admission.Attributes) error {
	pod, ok := a.GetObject().(*corev1.Pod)
	if !ok {
		return apierrors.NewBadRequest("resource was marked with kind Pod but was unable to be converted")
	}
	if a.GetOperation() == admission.Update {
		oldPod, ok := a.GetOldObject().(*corev1.Pod)
		if !ok {
			return apierrors.NewBadRequest("resource was marked with kind Pod but was unable to be converted")
		}
		// Keep what this plugin set on create; validation rejects other changes.
		if pod.Spec.Priority == nil && oldPod.Spec.Priority != nil {
			pod.Spec.Priority = oldPod.Spec.Priority
		}
		if pod.Spec.PreemptionPolicy == nil && oldPod.Spec.PreemptionPolicy != nil {
			pod.Spec.PreemptionPolicy = oldPod.Spec.PreemptionPolicy
		}
		return nil
	}
	pcName, priority, preemptionPolicy, err := p.establishPriority(a, pod.Spec.PriorityClassName)
	if err != nil {
		return err
	}
	pod.Spec.PriorityClassName = pcName
	if pod.Spec.Priority != nil && *pod.Spec.Priority != priority {
		return admission.NewForbidden(a, fmt.Errorf("the integer value of priority (%d) must not be provided in pod spec; priority admission controller computed %d from the given PriorityClass name", *pod.Spec.Priority, priority))
	}
	pod.Spec.Priority = &priority
	if preemptionPolicy != nil {
		policy := *preemptionPolicy
		if pod.Spec.PreemptionPolicy != nil && *pod.Spec.PreemptionPolicy != policy {
			return admission.NewForbidden(a, fmt.Errorf("the string value of PreemptionPolicy (%s) must not be provided in pod spec; priority admission controller computed %s from the given PriorityClass name", *pod.Spec.PreemptionPolicy, policy))
		}
		pod.Spec.PreemptionPolicy = &policy
	}
	return nil
}

// validatePriorityClass: only one class may be the global default.
func (p *Priority) validatePriorityClass(a admission.Attributes) error {
	pc, ok := a.GetObject().(*schedulingv1.PriorityClass)
	if !ok {
		return apierrors.NewBadRequest("resource was marked with kind PriorityClass but was unable to be converted")
	}
	if !pc.GlobalDefault {
		return nil
	}
	dpc, err := p.getDefaultPriorityClass()
	if err != nil {
		return fmt.Errorf("failed to get default priority class: %v", err)
	}
	if dpc != nil && (a.GetOperation() == admission.Create || (a.GetOperation() == admission.Update && dpc.GetName() != pc.GetName())) {
		return admission.NewForbidden(a, fmt.Errorf("PriorityClass %v is already marked as default. Only one default can exist", dpc.GetName()))
	}
	return nil
}

// establishPriority returns the class name, priority and preemption policy for a class name,
// or those of the global default class when the name is empty.
func (p *Priority) establishPriority(a admission.Attributes, priorityClassName string) (string, int32, *corev1.PreemptionPolicy, error) {
	if priorityClassName == "" {
		dpc, err := p.getDefaultPriorityClass()
		if err != nil {
			return "", 0, nil, fmt.Errorf("error occurred while retrieving default priority class: %w", err)
		}
		if dpc != nil {
			return dpc.Name, dpc.Value, dpc.PreemptionPolicy, nil
		}
		preemptLowerPriority := corev1.PreemptLowerPriority
		return "", 0, &preemptLowerPriority, nil // DefaultPriorityWhenNoDefaultClassExists
	}
	pc, err := p.lister.Get(priorityClassName)
	if err != nil {
		if apierrors.IsNotFound(err) {
			return "", 0, nil, admission.NewForbidden(a, fmt.Errorf("no PriorityClass with name %v was found", priorityClassName))
		}
		return "", 0, nil, fmt.Errorf("failed to resolve PriorityClass with name %s: %w", priorityClassName, err)
	}
	return priorityClassName, pc.Value, pc.PreemptionPolicy, nil
}

// getDefaultPriorityClass returns the global default class; should a race have made more than
// one, the one with the lowest value.
func (p *Priority) getDefaultPriorityClass() (*schedulingv1.PriorityClass, error) {
	list, err := p.lister.List(labels.Everything())
	if err != nil {
		return nil, err
	}
	var defaultPC *schedulingv1.PriorityClass
	for _, pci := range list {
		if pci.GlobalDefault && (defaultPC == nil || defaultPC.Value > pci.Value) {
			defaultPC = pci
		}
	}
	return defaultPC, nil
}
