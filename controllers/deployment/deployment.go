// Package deployment rolls a Deployment's pod template out through ReplicaSets.
//
// kube-controller-manager's deployment-controller gives every version of a Deployment's pod
// template a ReplicaSet of its own, named after a hash of the template (the pod-template-hash
// label on the ReplicaSet, its selector and its pods), numbers them with revisions, and moves
// the replicas from the old ReplicaSets to the new one: RollingUpdate within maxSurge and
// maxUnavailable, Recreate after every old pod is gone. It reports the rollout in the
// Deployment's status, which kubectl rollout status reads.
//
// Ours does that: revisions in deployment.kubernetes.io/revision on the Deployment and its
// ReplicaSets (a template rolled back to takes the next revision, and the old number goes to
// deployment.kubernetes.io/revision-history), so kubectl rollout history and undo work; the
// Deployment's annotations (kubernetes.io/change-cause) copied to its new ReplicaSet;
// desired-replicas and max-replicas annotations; hash collisions counted in
// status.collisionCount; paused Deployments that scale but do not roll; old ReplicaSets beyond
// revisionHistoryLimit deleted; status counts, the Available, Progressing (with
// progressDeadlineSeconds) and ReplicaFailure conditions, with kube's reasons and messages.
//
// Left out: proportional scaling. When replicas change in the middle of a rollout, kube spreads
// the change over the ReplicaSets in proportion to their sizes; ours gives an increase to the
// new ReplicaSet and takes a decrease from the old ones first, as the rollout would anyway
// (and, while paused, from the oldest ReplicaSets first). The template hash is ours (FNV over
// the template's JSON), not kube's, so ReplicaSet names differ from a real cluster's. The
// long-gone spec.rollbackTo of extensions/v1beta1 is not served here, so not handled.
package deployment

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	appsinformers "k8s.io/client-go/informers/apps/v1"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	appslisters "k8s.io/client-go/listers/apps/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"

	"github.com/apichain/apichain/controllers/internal/loop"
	"github.com/apichain/apichain/controllers/internal/workload"
)

// Name is the controller's name in its events and writes.
const Name = "deployment-controller"

var kind = appsv1.SchemeGroupVersion.WithKind("Deployment")

// Controller rolls Deployments out. Build it with New, start it with Run.
type Controller struct {
	client      kubernetes.Interface
	deployments appslisters.DeploymentLister
	sets        appslisters.ReplicaSetLister
	pods        corelisters.PodLister
	synced      []cache.InformerSynced
	queue       loop.Queue
	recorder    record.EventRecorder // set by Run
}

// New returns the controller, watching Deployments, ReplicaSets and pods through the shared
// informers given.
func New(client kubernetes.Interface, deployments appsinformers.DeploymentInformer, sets appsinformers.ReplicaSetInformer, pods coreinformers.PodInformer) (*Controller, error) {
	c := &Controller{
		client:      client,
		deployments: deployments.Lister(),
		sets:        sets.Lister(),
		pods:        pods.Lister(),
		synced:      []cache.InformerSynced{deployments.Informer().HasSynced, sets.Informer().HasSynced, pods.Informer().HasSynced},
		queue:       loop.NewQueue(Name),
	}
	if _, err := deployments.Informer().AddEventHandler(loop.Handler(c.queue)); err != nil {
		return nil, fmt.Errorf("watching deployments: %w", err)
	}
	if _, err := sets.Informer().AddEventHandler(workload.Dependents(c.queue, nil, c.ownersOf)); err != nil {
		return nil, fmt.Errorf("watching replicasets: %w", err)
	}
	// A Recreate rollout waits for the old pods to be gone: their deletion brings it back.
	if _, err := pods.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{DeleteFunc: c.podDeleted}); err != nil {
		return nil, fmt.Errorf("watching pods: %w", err)
	}
	return c, nil
}

// Run syncs Deployments with workers goroutines until ctx is done.
func (c *Controller) Run(ctx context.Context, workers int) {
	c.recorder = loop.Recorder(ctx, c.client, Name)
	loop.Run(ctx, c.queue, workers, c.sync, c.synced...)
}

// ownersOf names the Deployment controlling a ReplicaSet, or those that may adopt it.
func (c *Controller) ownersOf(rs metav1.Object) ([]string, bool) {
	deployments, err := c.deployments.Deployments(rs.GetNamespace()).List(labels.Everything())
	if err != nil {
		return nil, false
	}
	return workload.OwnersOf(rs, kind, deployments, func(d *appsv1.Deployment) labels.Selector { return workload.Selector(d.Spec.Selector) })
}

func (c *Controller) podDeleted(obj any) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return
	}
	ref := metav1.GetControllerOfNoCopy(pod)
	if ref == nil || ref.Kind != "ReplicaSet" {
		return
	}
	rs, err := c.sets.ReplicaSets(pod.Namespace).Get(ref.Name)
	if err != nil || rs.UID != ref.UID {
		return
	}
	if keys, controlled := c.ownersOf(rs); controlled {
		c.queue.Add(keys[0])
	}
}

// owner is d as the owner of its ReplicaSets.
func (c *Controller) owner(d *appsv1.Deployment, selector labels.Selector) *workload.Owner {
	return &workload.Owner{
		Object:   d,
		Kind:     kind,
		Selector: selector,
		Fresh: func(ctx context.Context) (metav1.Object, error) {
			return c.client.AppsV1().Deployments(d.Namespace).Get(ctx, d.Name, metav1.GetOptions{})
		},
		Patch: func(ctx context.Context, name string, patch []byte) error {
			_, err := c.client.AppsV1().ReplicaSets(d.Namespace).Patch(ctx, name, types.StrategicMergePatchType, patch, metav1.PatchOptions{FieldManager: Name})
			return err
		},
	}
}
