// Package nodelifecycle keeps nodes' NoSchedule taints in step with their conditions.
//
// kube-controller-manager's node lifecycle controller watches every node's heartbeats and
// conditions: it marks a node whose kubelet has gone silent Unknown, taints nodes by condition
// (NoSchedule for not-ready or unreachable, memory, disk or PID pressure, an unavailable network,
// and a cordoned node), and through NoExecute taints has the pods of unreachable nodes evicted.
//
// Ours does the NoSchedule part: a node that is not Ready is tainted node.kubernetes.io/not-ready
// (unreachable when Ready is Unknown), one under memory, disk or PID pressure or without network
// likewise, a cordoned one unschedulable; when the condition clears, so does the taint. Every new
// node starts tainted not-ready (the TaintNodesByCondition admission plugin), so without this
// controller nothing would ever be scheduled.
//
// Left out: the NoExecute taints and pod eviction of unreachable nodes, and the node monitor
// that marks silent nodes Unknown (the simulated kubelets do not go silent).
package nodelifecycle

import (
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/retry"
	"k8s.io/klog/v2"

	"github.com/apichain/apichain/controllers/internal/loop"
)

// conditionTaints maps node conditions to the taint kube-controller-manager puts for them.
var conditionTaints = map[corev1.NodeConditionType]map[corev1.ConditionStatus]string{
	corev1.NodeReady:              {corev1.ConditionFalse: corev1.TaintNodeNotReady, corev1.ConditionUnknown: corev1.TaintNodeUnreachable},
	corev1.NodeMemoryPressure:     {corev1.ConditionTrue: corev1.TaintNodeMemoryPressure},
	corev1.NodeDiskPressure:       {corev1.ConditionTrue: corev1.TaintNodeDiskPressure},
	corev1.NodeNetworkUnavailable: {corev1.ConditionTrue: corev1.TaintNodeNetworkUnavailable},
	corev1.NodePIDPressure:        {corev1.ConditionTrue: corev1.TaintNodePIDPressure},
}

// managed are the NoSchedule taint keys this controller owns.
var managed = []string{corev1.TaintNodeNotReady, corev1.TaintNodeUnreachable, corev1.TaintNodeMemoryPressure,
	corev1.TaintNodeDiskPressure, corev1.TaintNodeNetworkUnavailable, corev1.TaintNodePIDPressure, corev1.TaintNodeUnschedulable}

// Controller keeps node taints in step with node conditions.
type Controller struct {
	client kubernetes.Interface
	nodes  corelisters.NodeLister
	synced cache.InformerSynced
	queue  loop.Queue // node names
}

// New watches nodes through informer.
func New(client kubernetes.Interface, informer coreinformers.NodeInformer) (*Controller, error) {
	c := &Controller{
		client: client,
		nodes:  informer.Lister(),
		synced: informer.Informer().HasSynced,
		queue:  loop.NewQueue("node_lifecycle_controller"),
	}
	_, err := informer.Informer().AddEventHandler(loop.Handler(c.queue))
	return c, err
}

// Run keeps taints in step with workers goroutines until ctx is done, and returns once they
// have finished.
func (c *Controller) Run(ctx context.Context, workers int) {
	loop.Run(ctx, c.queue, workers, c.sync, c.synced)
}

// wantedTaints are the NoSchedule taints the node's conditions and spec call for.
func wantedTaints(node *corev1.Node) []corev1.Taint {
	var taints []corev1.Taint
	for _, cond := range node.Status.Conditions {
		if key, ok := conditionTaints[cond.Type][cond.Status]; ok {
			taints = append(taints, corev1.Taint{Key: key, Effect: corev1.TaintEffectNoSchedule})
		}
	}
	if node.Spec.Unschedulable {
		taints = append(taints, corev1.Taint{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule})
	}
	return taints
}

// desired returns the node's taints with the managed NoSchedule ones replaced by want (keeping
// the TimeAdded of those already there), and whether that changes anything.
func desired(current, want []corev1.Taint) ([]corev1.Taint, bool) {
	var out, had []corev1.Taint
	for _, t := range current {
		if t.Effect == corev1.TaintEffectNoSchedule && slices.Contains(managed, t.Key) {
			had = append(had, t)
		} else {
			out = append(out, t)
		}
	}
	changed := len(had) != len(want)
	for _, w := range want {
		if i := slices.IndexFunc(had, func(t corev1.Taint) bool { return t.Key == w.Key }); i >= 0 {
			w = had[i]
		} else {
			changed = true
			now := metav1.Now()
			w.TimeAdded = &now
		}
		out = append(out, w)
	}
	return out, changed
}

func (c *Controller) sync(ctx context.Context, name string) error {
	node, err := c.nodes.Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if _, changed := desired(node.Spec.Taints, wantedTaints(node)); !changed {
		return nil
	}
	// Read-modify-write, again on a conflict, as kube-controller-manager swaps a node's taints.
	return retry.RetryOnConflict(retry.DefaultBackoff, func() error {
		fresh, err := c.client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		taints, changed := desired(fresh.Spec.Taints, wantedTaints(fresh))
		if !changed {
			return nil
		}
		fresh.Spec.Taints = taints
		if _, err := c.client.CoreV1().Nodes().Update(ctx, fresh, metav1.UpdateOptions{FieldManager: "node-lifecycle-controller"}); err != nil {
			return fmt.Errorf("updating taints: %w", err)
		}
		klog.FromContext(ctx).V(2).Info("updated node taints", "node", name, "taints", taints)
		return nil
	})
}
