package admission

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apiserver/pkg/admission"
)

// TaintNodesByConditionPluginName is kube's name for the node taint plugin.
const TaintNodesByConditionPluginName = "TaintNodesByCondition"

// TaintNodesByCondition taints every new node node.kubernetes.io/not-ready:NoSchedule, so that
// nothing is scheduled there before the node reports Ready (kubernetes
// plugin/pkg/admission/nodetaint/admission.go). In a cluster, kube-controller-manager's node
// lifecycle controller removes the taint once the node is Ready.
type TaintNodesByCondition struct {
	*admission.Handler
}

var _ admission.MutationInterface = &TaintNodesByCondition{}

// NewTaintNodesByCondition creates the plugin.
func NewTaintNodesByCondition() *TaintNodesByCondition {
	return &TaintNodesByCondition{Handler: admission.NewHandler(admission.Create)}
}

// Admit adds the not-ready taint to a node being created.
func (p *TaintNodesByCondition) Admit(ctx context.Context, a admission.Attributes, o admission.ObjectInterfaces) error {
	if a.GetResource().GroupResource() != corev1.Resource("nodes") || a.GetSubresource() != "" {
		return nil
	}
	node, ok := a.GetObject().(*corev1.Node)
	if !ok {
		return admission.NewForbidden(a, fmt.Errorf("unexpected type %T", a.GetObject()))
	}
	notReady := corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule}
	for _, taint := range node.Spec.Taints {
		if taint.MatchTaint(&notReady) {
			return nil // the taint already exists
		}
	}
	node.Spec.Taints = append(node.Spec.Taints, notReady)
	return nil
}

// DefaultTolerationSecondsPluginName is kube's name for the default toleration plugin.
const DefaultTolerationSecondsPluginName = "DefaultTolerationSeconds"

// defaultTolerationSeconds are kube-apiserver's --default-not-ready-toleration-seconds and
// --default-unreachable-toleration-seconds.
const defaultTolerationSeconds = int64(300)

// DefaultTolerationSeconds gives every pod that does not tolerate them already the NoExecute
// tolerations of node.kubernetes.io/not-ready and node.kubernetes.io/unreachable for 300 s
// (kubernetes plugin/pkg/admission/defaulttolerationseconds/admission.go).
type DefaultTolerationSeconds struct {
	*admission.Handler
}

var _ admission.MutationInterface = &DefaultTolerationSeconds{}

// NewDefaultTolerationSeconds creates the plugin.
func NewDefaultTolerationSeconds() *DefaultTolerationSeconds {
	return &DefaultTolerationSeconds{Handler: admission.NewHandler(admission.Create, admission.Update)}
}

// Admit adds the missing tolerations.
func (p *DefaultTolerationSeconds) Admit(ctx context.Context, a admission.Attributes, o admission.ObjectInterfaces) error {
	if a.GetResource().GroupResource() != corev1.Resource("pods") || len(a.GetSubresource()) > 0 {
		return nil
	}
	pod, ok := a.GetObject().(*corev1.Pod)
	if !ok {
		return apierrors.NewBadRequest(fmt.Sprintf("expected *api.Pod but got %T", a.GetObject()))
	}
	toleratesNodeNotReady, toleratesNodeUnreachable := false, false
	for _, toleration := range pod.Spec.Tolerations {
		noExecute := toleration.Effect == corev1.TaintEffectNoExecute || len(toleration.Effect) == 0
		if (toleration.Key == corev1.TaintNodeNotReady || len(toleration.Key) == 0) && noExecute {
			toleratesNodeNotReady = true
		}
		if (toleration.Key == corev1.TaintNodeUnreachable || len(toleration.Key) == 0) && noExecute {
			toleratesNodeUnreachable = true
		}
	}
	if !toleratesNodeNotReady {
		pod.Spec.Tolerations = append(pod.Spec.Tolerations, toleration(corev1.TaintNodeNotReady))
	}
	if !toleratesNodeUnreachable {
		pod.Spec.Tolerations = append(pod.Spec.Tolerations, toleration(corev1.TaintNodeUnreachable))
	}
	return nil
}

func toleration(key string) corev1.Toleration {
	seconds := defaultTolerationSeconds
	return corev1.Toleration{Key: key, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &seconds}
}
