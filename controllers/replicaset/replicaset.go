// Package replicaset keeps the number of pods a ReplicaSet, or a ReplicationController, asks
// for running.
//
// kube-controller-manager's replicaset-controller does this for ReplicaSets, and its
// replicationcontroller-controller, the same code behind an adapter, for ReplicationControllers.
// Ours does what a user sees of them: it claims the pods the selector matches (adopting orphans,
// releasing pods relabelled out), creates the missing pods from the template (in batches of 1,
// 2, 4, …, at most 500 a sync) and deletes the extra ones (pending and unready pods first, see
// workload.DeleteFirst), then reports status: replicas, fullyLabeledReplicas, readyReplicas,
// availableReplicas (ready for minReadySeconds), terminatingReplicas, observedGeneration, and
// the ReplicaFailure condition while creating or deleting pods fails. A ReplicationController
// is read as the ReplicaSet it amounts to, one whose selector is matchLabels (see rc.go).
//
// Left out: the ranking of pods by how many of their siblings share their node, which kube
// uses to spread a scale-down; metrics.
package replicaset

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	appsinformers "k8s.io/client-go/informers/apps/v1"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/apichain/apichain/controllers/internal/loop"
	"github.com/apichain/apichain/controllers/internal/workload"
)

// Controller keeps the pods of one kind of replicated object: ReplicaSets, or
// ReplicationControllers. Build it with NewForReplicaSets or NewForReplicationControllers,
// start it with Run.
type Controller struct {
	kind      schema.GroupVersionKind
	component string // who reports the events
	client    kubernetes.Interface
	sets      replicated
	pods      corelisters.PodLister
	synced    []cache.InformerSynced
	queue     loop.Queue
	expect    *workload.Expectations
	// podControl writes pods and reports events; set by Run, which has the context events
	// are recorded in.
	podControl workload.PodControl
}

// replicated is what the controller reads and writes of its kind, every object seen as a
// ReplicaSet.
type replicated interface {
	get(namespace, name string) (*appsv1.ReplicaSet, error)
	list(namespace string) ([]*appsv1.ReplicaSet, error)
	// fresh reads the object from the API, not the cache.
	fresh(ctx context.Context, namespace, name string) (metav1.Object, error)
	// updateStatus writes st as rs's status, unless it already is.
	updateStatus(ctx context.Context, rs *appsv1.ReplicaSet, st appsv1.ReplicaSetStatus) error
}

// NewForReplicaSets returns the controller of ReplicaSets, watching them and pods through the
// shared informers given.
func NewForReplicaSets(client kubernetes.Interface, sets appsinformers.ReplicaSetInformer, pods coreinformers.PodInformer) (*Controller, error) {
	return newController(appsv1.SchemeGroupVersion.WithKind("ReplicaSet"), "replicaset-controller", client,
		replicaSets{client: client, lister: sets.Lister()}, sets.Informer(), pods)
}

// NewForReplicationControllers returns the controller of ReplicationControllers.
func NewForReplicationControllers(client kubernetes.Interface, rcs coreinformers.ReplicationControllerInformer, pods coreinformers.PodInformer) (*Controller, error) {
	return newController(corev1.SchemeGroupVersion.WithKind("ReplicationController"), "replication-controller", client,
		replicationControllers{client: client, lister: rcs.Lister()}, rcs.Informer(), pods)
}

func newController(kind schema.GroupVersionKind, component string, client kubernetes.Interface, sets replicated,
	informer cache.SharedIndexInformer, pods coreinformers.PodInformer) (*Controller, error) {
	c := &Controller{
		kind:      kind,
		component: component,
		client:    client,
		sets:      sets,
		pods:      pods.Lister(),
		synced:    []cache.InformerSynced{informer.HasSynced, pods.Informer().HasSynced},
		queue:     loop.NewQueue(component),
		expect:    workload.NewExpectations(),
	}
	if _, err := informer.AddEventHandler(loop.Handler(c.queue)); err != nil {
		return nil, fmt.Errorf("watching %ss: %w", kind.Kind, err)
	}
	if _, err := pods.Informer().AddEventHandler(workload.Dependents(c.queue, c.expect, c.ownersOf)); err != nil {
		return nil, fmt.Errorf("watching pods: %w", err)
	}
	return c, nil
}

// Run syncs with workers goroutines until ctx is done.
func (c *Controller) Run(ctx context.Context, workers int) {
	c.podControl = workload.PodControl{Client: c.client, Recorder: loop.Recorder(ctx, c.client, c.component), Expect: c.expect}
	loop.Run(ctx, c.queue, workers, c.sync, c.synced...)
}

// ownersOf names the object controlling pod, or those that may adopt it.
func (c *Controller) ownersOf(pod metav1.Object) ([]string, bool) {
	sets, err := c.sets.list(pod.GetNamespace())
	if err != nil {
		return nil, false
	}
	return workload.OwnersOf(pod, c.kind, sets, func(rs *appsv1.ReplicaSet) labels.Selector { return workload.Selector(rs.Spec.Selector) })
}

// owner is rs as the owner of its pods.
func (c *Controller) owner(rs *appsv1.ReplicaSet, selector labels.Selector) *workload.Owner {
	return &workload.Owner{
		Object:   rs,
		Kind:     c.kind,
		Selector: selector,
		Fresh:    func(ctx context.Context) (metav1.Object, error) { return c.sets.fresh(ctx, rs.Namespace, rs.Name) },
		Patch: func(ctx context.Context, name string, patch []byte) error {
			_, err := c.client.CoreV1().Pods(rs.Namespace).Patch(ctx, name, types.StrategicMergePatchType, patch, metav1.PatchOptions{})
			return err
		},
	}
}
