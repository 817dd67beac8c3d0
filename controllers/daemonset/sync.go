package daemonset

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	"github.com/apichain/apichain/controllers/internal/workload"
)

// daemon is a DaemonSet and where its pods are, at one sync.
type daemon struct {
	*appsv1.DaemonSet
	hash  string // of the update revision: the template's
	nodes []*corev1.Node
	// runs says which nodes the pod belongs on; stays, on which one already there may stay.
	runs, stays map[string]bool
	// live are the pods running, or about to, by the node they are for, oldest first; failed
	// are those that ended.
	live   map[string][]*corev1.Pod
	failed []*corev1.Pod
	now    time.Time
}

func (d *daemon) updated(p *corev1.Pod) bool {
	return p.Labels[appsv1.ControllerRevisionHashLabelKey] == d.hash
}

func (d *daemon) available(p *corev1.Pod) bool {
	ok, _ := workload.Available(p, d.Spec.MinReadySeconds, d.now)
	return ok
}

// sync moves the DaemonSet at key one step toward one pod of its template on every node that
// should run it, and reports where it is.
func (c *Controller) sync(ctx context.Context, key string) error {
	namespace, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil // not a key of ours
	}
	ds, err := c.sets.DaemonSets(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		c.expect.Forget(key) // gone: the garbage collector takes its pods
		return nil
	}
	if err != nil {
		return err
	}
	selector := workload.Selector(ds.Spec.Selector)
	if selector == nil {
		return nil // validation refuses such a selector: nothing to select pods with
	}
	owner := c.owner(ds, selector)
	history, err := c.revisions.Sync(ctx, owner, &ds.Spec.Template, ds.Status.CollisionCount)
	if errors.Is(err, workload.ErrHashCollision) {
		st := ds.Status.DeepCopy()
		st.CollisionCount = ptr.To(ptr.Deref(st.CollisionCount, 0) + 1)
		return errors.Join(err, c.writeStatus(ctx, ds, st))
	}
	if err != nil {
		return err
	}
	all, err := c.pods.Pods(namespace).List(labels.Everything())
	if err != nil {
		return err
	}
	pods, err := workload.Claim(ctx, owner, all)
	if err != nil {
		return err
	}
	nodes, err := c.nodes.List(labels.Everything())
	if err != nil {
		return err
	}
	slices.SortFunc(nodes, func(a, b *corev1.Node) int { return strings.Compare(a.Name, b.Name) })
	d := &daemon{DaemonSet: ds, hash: hashOf(ds, history.Update), nodes: nodes, runs: map[string]bool{},
		stays: map[string]bool{}, live: map[string][]*corev1.Pod{}, now: time.Now()}
	tolerations := tolerations(&ds.Spec.Template.Spec)
	for _, n := range nodes {
		d.runs[n.Name], d.stays[n.Name] = placement(&ds.Spec.Template.Spec, tolerations, n)
	}
	for _, p := range sortedByAge(pods) {
		switch {
		case workload.IsFinished(p) && p.DeletionTimestamp == nil:
			d.failed = append(d.failed, p)
		case workload.IsActive(p) && targetNode(p) != "":
			d.live[targetNode(p)] = append(d.live[targetNode(p)], p)
		}
	}

	var manageErr error
	if ds.DeletionTimestamp == nil && c.expect.Satisfied(key) {
		manageErr = c.manage(ctx, key, d)
	}
	st, wait := d.status()
	if err := c.writeStatus(ctx, ds, &st); err != nil {
		return errors.Join(manageErr, err)
	}
	inUse := sets.New(history.Update.Name)
	hashes := sets.New[string]()
	for _, p := range pods {
		hashes.Insert(p.Labels[appsv1.ControllerRevisionHashLabelKey])
	}
	for _, rev := range history.All {
		if hashes.Has(hashOf(ds, rev)) {
			inUse.Insert(rev.Name)
		}
	}
	if err := c.revisions.Prune(ctx, history, ptr.Deref(ds.Spec.RevisionHistoryLimit, 10), inUse); err != nil {
		return errors.Join(manageErr, err)
	}
	if wait > 0 { // a ready pod becomes available then
		c.queue.AddAfter(key, wait)
	}
	return manageErr
}

// hashOf is the hash a revision's pods carry in their controller-revision-hash label.
func hashOf(ds *appsv1.DaemonSet, rev *appsv1.ControllerRevision) string {
	if h, ok := rev.Labels[appsv1.ControllerRevisionHashLabelKey]; ok {
		return h
	}
	return strings.TrimPrefix(rev.Name, ds.Name+"-")
}

// manage creates the pods nodes lack and deletes those that are failed, extra, on nodes where
// they may not stay (or that are gone), and, for a RollingUpdate, old ones as the update
// allows.
func (c *Controller) manage(ctx context.Context, key string, d *daemon) error {
	surge, _ := d.limits()
	var create []string // nodes
	remove := slices.Clone(d.failed)
	for _, n := range d.nodes {
		live := d.live[n.Name]
		switch {
		case !d.runs[n.Name] && !d.stays[n.Name]:
			remove = append(remove, live...)
		case !d.runs[n.Name]:
			// tainted NoSchedule since: what runs there stays, nothing new comes
		case len(live) == 0:
			create = append(create, n.Name)
		default:
			remove = append(remove, d.extra(live, surge > 0)...)
		}
	}
	for node, live := range d.live {
		if _, exists := d.runs[node]; !exists {
			remove = append(remove, live...) // for a node that is gone
		}
	}
	if d.Spec.UpdateStrategy.Type == appsv1.RollingUpdateDaemonSetStrategyType {
		more, old := d.roll()
		create, remove = append(create, more...), append(remove, old...)
	}

	// Creations first: expectations hold one batch of writes at a time, and the deletions
	// follow in the sync the new pods bring.
	owner := c.owner(d.DaemonSet, nil)
	if len(create) > 0 {
		return c.podControl.Create(ctx, key, owner, min(len(create), workload.MaxBurst), func(i int) *corev1.Pod {
			return newPod(owner, d.DaemonSet, d.hash, create[i])
		})
	}
	if len(remove) > 0 {
		return c.podControl.Delete(ctx, key, owner, remove[:min(len(remove), workload.MaxBurst)])
	}
	return nil
}

// extra are the pods of one node beyond the one it should run: it keeps its updated pod if it
// has one, else its oldest; while a RollingUpdate surges, an updated pod and an old one.
func (d *daemon) extra(live []*corev1.Pod, surging bool) []*corev1.Pod {
	updated, old := d.split(live)
	var keep []*corev1.Pod
	switch {
	case len(updated) > 0 && len(old) > 0 && surging:
		keep = []*corev1.Pod{updated[0], old[0]}
	case len(updated) > 0:
		keep = updated[:1]
	default:
		keep = old[:1]
	}
	return slices.DeleteFunc(slices.Clone(live), func(p *corev1.Pod) bool { return slices.Contains(keep, p) })
}

// roll is one step of a RollingUpdate: the nodes to start an updated pod on, and the old pods
// to delete. Without surge an old pod goes when it is unavailable anyway, or while fewer than
// maxUnavailable nodes lack an available pod; with surge an updated pod starts beside the old
// one on up to maxSurge nodes at a time, and the old one goes once the updated one is
// available.
func (d *daemon) roll() (create []string, remove []*corev1.Pod) {
	surge, maxUnavailable := d.limits()
	unavailable, surged := 0, 0
	for _, n := range d.nodes {
		if !d.runs[n.Name] {
			continue
		}
		updated, _ := d.split(d.live[n.Name])
		if !slices.ContainsFunc(d.live[n.Name], d.available) {
			unavailable++
		}
		if len(updated) > 0 && !d.available(updated[0]) && len(d.live[n.Name]) > 1 {
			surged++
		}
	}
	for _, n := range d.nodes {
		updated, old := d.split(d.live[n.Name])
		if !d.runs[n.Name] || len(old) == 0 {
			continue
		}
		oldAvailable := slices.ContainsFunc(old, d.available)
		switch {
		case surge == 0 && len(updated) > 0:
			// extra already takes the old pod
		case surge == 0 && !oldAvailable:
			remove = append(remove, old...)
		case surge == 0 && unavailable < maxUnavailable:
			remove = append(remove, old...)
			unavailable++
		case surge > 0 && len(updated) > 0 && d.available(updated[0]):
			remove = append(remove, old...)
		case surge > 0 && len(updated) == 0 && (!oldAvailable || surged < surge):
			create = append(create, n.Name)
			if oldAvailable {
				surged++
			}
		}
	}
	return create, remove
}

// split sorts pods into updated and old ones.
func (d *daemon) split(pods []*corev1.Pod) (updated, old []*corev1.Pod) {
	for _, p := range pods {
		if d.updated(p) {
			updated = append(updated, p)
		} else {
			old = append(old, p)
		}
	}
	return updated, old
}

// limits are the RollingUpdate's maxSurge and maxUnavailable as numbers of nodes, percentages
// of the nodes that should run the pod rounded up; both 0 would never move, so unavailability
// is then 1. OnDelete allows neither.
func (d *daemon) limits() (surge, unavailable int) {
	ru := d.Spec.UpdateStrategy.RollingUpdate
	if d.Spec.UpdateStrategy.Type != appsv1.RollingUpdateDaemonSetStrategyType || ru == nil {
		return 0, 0
	}
	desired := 0
	for _, runs := range d.runs {
		if runs {
			desired++
		}
	}
	// Validation has checked both: an error cannot happen, and would mean 0.
	surge, _ = intstr.GetScaledValueFromIntOrPercent(intstr.ValueOrDefault(ru.MaxSurge, intstr.FromInt32(0)), desired, true)
	unavailable, _ = intstr.GetScaledValueFromIntOrPercent(intstr.ValueOrDefault(ru.MaxUnavailable, intstr.FromInt32(0)), desired, true)
	if surge == 0 && unavailable == 0 {
		unavailable = 1
	}
	return surge, unavailable
}

// status counts the nodes: those that should run the pod, those that do (and whether their
// pod is ready, available, updated), those that run it but should not. wait, when not zero,
// is how long until a ready pod becomes available.
func (d *daemon) status() (st appsv1.DaemonSetStatus, wait time.Duration) {
	st = appsv1.DaemonSetStatus{ObservedGeneration: d.Generation, CollisionCount: d.Status.CollisionCount}
	for _, n := range d.nodes {
		live := d.live[n.Name]
		if !d.runs[n.Name] {
			if len(live) > 0 {
				st.NumberMisscheduled++
			}
			continue
		}
		st.DesiredNumberScheduled++
		if len(live) == 0 {
			continue
		}
		st.CurrentNumberScheduled++
		p := live[0] // the oldest, or the updated one if there is one
		if updated, _ := d.split(d.live[n.Name]); len(updated) > 0 {
			p = updated[0]
			st.UpdatedNumberScheduled++
		}
		if workload.IsReady(p) {
			st.NumberReady++
		}
		ok, after := workload.Available(p, d.Spec.MinReadySeconds, d.now)
		switch {
		case ok:
			st.NumberAvailable++
		case after > 0 && (wait == 0 || after < wait):
			wait = after
		}
	}
	st.NumberUnavailable = st.DesiredNumberScheduled - st.NumberAvailable
	return st, wait
}

func (c *Controller) writeStatus(ctx context.Context, ds *appsv1.DaemonSet, st *appsv1.DaemonSetStatus) error {
	if apiequality.Semantic.DeepEqual(ds.Status, *st) {
		return nil
	}
	ds = ds.DeepCopy()
	ds.Status = *st
	_, err := c.client.AppsV1().DaemonSets(ds.Namespace).UpdateStatus(ctx, ds, metav1.UpdateOptions{FieldManager: Name})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("updating the status of daemonset %s/%s: %w", ds.Namespace, ds.Name, err)
	}
	return nil
}
