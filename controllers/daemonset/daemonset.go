// Package daemonset runs one pod of a DaemonSet on every node that should run it.
//
// kube-controller-manager's daemonset-controller decides, for every node, whether a DaemonSet's
// pod belongs there: the node matches the template's nodeSelector and required node affinity,
// and the pod tolerates the node's NoSchedule and NoExecute taints (with tolerations every
// daemon pod gets: not-ready and unreachable, the pressure taints, unschedulable, and
// network-unavailable for host-network pods). It creates the missing pods and deletes those on
// nodes where they do not belong, extra ones and failed ones. Since Kubernetes 1.12 it does not
// place them itself: each pod gets a required node affinity to its node (matchFields
// metadata.name), and the scheduler binds it there. Template changes roll out through
// ControllerRevisions (pods carry the controller-revision-hash label): RollingUpdate deletes old
// pods as long as at most maxUnavailable nodes lack an available pod, or with maxSurge starts the
// new pod beside the old one and deletes the old one once the new is available; OnDelete waits
// for the user to delete them. Its status is what kubectl rollout status reads, and the
// revisions what kubectl rollout history and undo read.
//
// Ours does that, and the chain's scheduler (controllers/scheduler) binds the pods, checking the
// same affinity and taints. New nodes, and nodes whose labels or taints change, bring every
// DaemonSet to look again. Revisions are kept by controllers/internal/workload.Revisions, shared
// with the StatefulSet controller.
//
// Left out: the back-off kube puts between replacing a daemon pod that failed and the next; with
// both maxSurge and maxUnavailable set, ours surges and ignores maxUnavailable.
package daemonset

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	appsinformers "k8s.io/client-go/informers/apps/v1"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	appslisters "k8s.io/client-go/listers/apps/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/apichain/apichain/controllers/internal/loop"
	"github.com/apichain/apichain/controllers/internal/workload"
)

// Name is the controller's name in its events and writes.
const Name = "daemonset-controller"

var kind = appsv1.SchemeGroupVersion.WithKind("DaemonSet")

// Controller runs DaemonSets. Build it with New, start it with Run.
type Controller struct {
	client    kubernetes.Interface
	sets      appslisters.DaemonSetLister
	pods      corelisters.PodLister
	nodes     corelisters.NodeLister
	revisions workload.Revisions
	synced    []cache.InformerSynced
	queue     loop.Queue
	expect    *workload.Expectations
	// podControl writes pods and reports events; set by Run, which has the context events
	// are recorded in.
	podControl workload.PodControl
}

// New returns the controller, watching DaemonSets, their pods and revisions, and nodes through
// the shared informers given.
func New(client kubernetes.Interface, sets appsinformers.DaemonSetInformer, pods coreinformers.PodInformer,
	nodes coreinformers.NodeInformer, revisions appsinformers.ControllerRevisionInformer) (*Controller, error) {
	c := &Controller{
		client:    client,
		sets:      sets.Lister(),
		pods:      pods.Lister(),
		nodes:     nodes.Lister(),
		revisions: workload.Revisions{Client: client, Lister: revisions.Lister()},
		synced: []cache.InformerSynced{sets.Informer().HasSynced, pods.Informer().HasSynced,
			nodes.Informer().HasSynced, revisions.Informer().HasSynced},
		queue:  loop.NewQueue(Name),
		expect: workload.NewExpectations(),
	}
	if _, err := sets.Informer().AddEventHandler(loop.Handler(c.queue)); err != nil {
		return nil, fmt.Errorf("watching daemonsets: %w", err)
	}
	if _, err := pods.Informer().AddEventHandler(workload.Dependents(c.queue, c.expect, c.ownersOf)); err != nil {
		return nil, fmt.Errorf("watching pods: %w", err)
	}
	if _, err := revisions.Informer().AddEventHandler(workload.Dependents(c.queue, nil, c.ownersOf)); err != nil {
		return nil, fmt.Errorf("watching controllerrevisions: %w", err)
	}
	// Where daemon pods belong changes with the nodes: every DaemonSet looks again. Heartbeats
	// (status only) change nothing.
	if _, err := nodes.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(any) { c.enqueueAll() },
		UpdateFunc: func(oldObj, obj any) {
			old, cur := oldObj.(*corev1.Node), obj.(*corev1.Node)
			if !maps.Equal(old.Labels, cur.Labels) || !apiequality.Semantic.DeepEqual(old.Spec.Taints, cur.Spec.Taints) {
				c.enqueueAll()
			}
		},
		DeleteFunc: func(any) { c.enqueueAll() },
	}); err != nil {
		return nil, fmt.Errorf("watching nodes: %w", err)
	}
	return c, nil
}

// Run syncs DaemonSets with workers goroutines until ctx is done.
func (c *Controller) Run(ctx context.Context, workers int) {
	c.podControl = workload.PodControl{Client: c.client, Recorder: loop.Recorder(ctx, c.client, Name), Expect: c.expect}
	loop.Run(ctx, c.queue, workers, c.sync, c.synced...)
}

func (c *Controller) enqueueAll() {
	sets, err := c.sets.List(labels.Everything())
	if err != nil {
		return
	}
	for _, ds := range sets {
		loop.Enqueue(c.queue, ds)
	}
}

// ownersOf names the DaemonSet controlling a pod or revision, or those that may adopt it.
func (c *Controller) ownersOf(obj metav1.Object) ([]string, bool) {
	sets, err := c.sets.DaemonSets(obj.GetNamespace()).List(labels.Everything())
	if err != nil {
		return nil, false
	}
	return workload.OwnersOf(obj, kind, sets, func(ds *appsv1.DaemonSet) labels.Selector { return workload.Selector(ds.Spec.Selector) })
}

// owner is ds as the owner of its pods.
func (c *Controller) owner(ds *appsv1.DaemonSet, selector labels.Selector) *workload.Owner {
	return &workload.Owner{
		Object:   ds,
		Kind:     kind,
		Selector: selector,
		Fresh: func(ctx context.Context) (metav1.Object, error) {
			return c.client.AppsV1().DaemonSets(ds.Namespace).Get(ctx, ds.Name, metav1.GetOptions{})
		},
		Patch: func(ctx context.Context, name string, patch []byte) error {
			_, err := c.client.CoreV1().Pods(ds.Namespace).Patch(ctx, name, types.StrategicMergePatchType, patch, metav1.PatchOptions{FieldManager: Name})
			return err
		},
	}
}

// sortedByAge orders pods oldest first (by name among equals).
func sortedByAge(pods []*corev1.Pod) []*corev1.Pod {
	pods = slices.Clone(pods)
	slices.SortFunc(pods, func(a, b *corev1.Pod) int {
		return cmp.Or(a.CreationTimestamp.Compare(b.CreationTimestamp.Time), strings.Compare(a.Name, b.Name))
	})
	return pods
}
