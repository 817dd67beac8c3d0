// Package statefulset runs a StatefulSet's pods: one per ordinal, each with a stable name and
// stable claims.
//
// kube-controller-manager's statefulset-controller gives a StatefulSet "web" the pods web-0 …
// web-(n-1), created in order and each only once the one before is Running and Ready
// (OrderedReady), or all at once (Parallel); a PersistentVolumeClaim per volumeClaimTemplate and
// pod (www-web-0, …) which outlives the pod; scale-down from the highest ordinal; and updates to
// the pod template rolled out through ControllerRevisions, highest ordinal first, down to
// spec.updateStrategy.rollingUpdate.partition (RollingUpdate), or left for the user to delete
// pods (OnDelete). Its status (replicas, readyReplicas, currentRevision, updateRevision, …) is
// what kubectl rollout status reads, and the revisions what kubectl rollout history and undo
// read.
//
// Ours does that: ordinals from spec.ordinals.start, pods labelled with their name, index and
// revision, hostname and subdomain (serviceName) set, claims created before their pod, RollingUpdate
// within maxUnavailable, minReadySeconds, failed pods replaced, revisionHistoryLimit, and
// persistentVolumeClaimRetentionPolicy (a claim is owned by the StatefulSet when whenDeleted is
// Delete, and by its pod once the pod is scaled away when whenScaled is Delete, so that the garbage
// collector takes it). Revisions are kept by controllers/internal/workload.Revisions, shared with
// the DaemonSet controller.
//
// The chain has no storage: nothing binds the claims, which stay Pending. The chain's scheduler
// does not look at volumes, so the pods run anyway.
//
// Left out: the pod's StatefulSet events use the ReplicaSet's wording ("Created pod: web-0"), and
// the whole set is not re-synced every 30 s as kube's is (its events and the pods' suffice here).
package statefulset

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
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
const Name = "statefulset-controller"

var kind = appsv1.SchemeGroupVersion.WithKind("StatefulSet")

// Controller runs StatefulSets. Build it with New, start it with Run.
type Controller struct {
	client    kubernetes.Interface
	sets      appslisters.StatefulSetLister
	pods      corelisters.PodLister
	claims    corelisters.PersistentVolumeClaimLister
	revisions workload.Revisions
	synced    []cache.InformerSynced
	queue     loop.Queue
	expect    *workload.Expectations
	// set by Run, which has the context events are recorded in
	podControl workload.PodControl
	recorder   record.EventRecorder
}

// New returns the controller, watching StatefulSets, their pods, claims and revisions through
// the shared informers given.
func New(client kubernetes.Interface, sets appsinformers.StatefulSetInformer, pods coreinformers.PodInformer,
	claims coreinformers.PersistentVolumeClaimInformer, revisions appsinformers.ControllerRevisionInformer) (*Controller, error) {
	c := &Controller{
		client:    client,
		sets:      sets.Lister(),
		pods:      pods.Lister(),
		claims:    claims.Lister(),
		revisions: workload.Revisions{Client: client, Lister: revisions.Lister()},
		synced: []cache.InformerSynced{sets.Informer().HasSynced, pods.Informer().HasSynced,
			claims.Informer().HasSynced, revisions.Informer().HasSynced},
		queue:  loop.NewQueue(Name),
		expect: workload.NewExpectations(),
	}
	if _, err := sets.Informer().AddEventHandler(loop.Handler(c.queue)); err != nil {
		return nil, fmt.Errorf("watching statefulsets: %w", err)
	}
	if _, err := pods.Informer().AddEventHandler(workload.Dependents(c.queue, c.expect, c.ownersOf)); err != nil {
		return nil, fmt.Errorf("watching pods: %w", err)
	}
	// A revision deleted or changed by hand is made right again.
	if _, err := revisions.Informer().AddEventHandler(workload.Dependents(c.queue, nil, c.ownersOf)); err != nil {
		return nil, fmt.Errorf("watching controllerrevisions: %w", err)
	}
	return c, nil
}

// Run syncs StatefulSets with workers goroutines until ctx is done.
func (c *Controller) Run(ctx context.Context, workers int) {
	c.recorder = loop.Recorder(ctx, c.client, Name)
	c.podControl = workload.PodControl{Client: c.client, Recorder: c.recorder, Expect: c.expect}
	loop.Run(ctx, c.queue, workers, c.sync, c.synced...)
}

// ownersOf names the StatefulSet controlling a pod or revision, or those that may adopt it.
func (c *Controller) ownersOf(obj metav1.Object) ([]string, bool) {
	sets, err := c.sets.StatefulSets(obj.GetNamespace()).List(labels.Everything())
	if err != nil {
		return nil, false
	}
	return workload.OwnersOf(obj, kind, sets, func(s *appsv1.StatefulSet) labels.Selector { return workload.Selector(s.Spec.Selector) })
}

// owner is set as the owner of its pods.
func (c *Controller) owner(set *appsv1.StatefulSet, selector labels.Selector) *workload.Owner {
	return &workload.Owner{
		Object:   set,
		Kind:     kind,
		Selector: selector,
		Fresh: func(ctx context.Context) (metav1.Object, error) {
			return c.client.AppsV1().StatefulSets(set.Namespace).Get(ctx, set.Name, metav1.GetOptions{})
		},
		Patch: func(ctx context.Context, name string, patch []byte) error {
			_, err := c.client.CoreV1().Pods(set.Namespace).Patch(ctx, name, types.StrategicMergePatchType, patch, metav1.PatchOptions{FieldManager: Name})
			return err
		},
	}
}
