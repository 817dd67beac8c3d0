package statefulset_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/apichain/apichain/controllers"
	"github.com/apichain/apichain/servers/chain"
	"github.com/apichain/apichain/test/testchain"
)

// TestStatefulSets runs StatefulSets on a chain with their controller, the scheduler, a
// simulated kubelet and the garbage collector; each subtest in a namespace of its own.
func TestStatefulSets(t *testing.T) {
	c := testchain.Start(t, func(o *chain.Options) {
		o.Controllers = []string{controllers.StatefulSet, controllers.NodeLifecycle, controllers.Scheduler,
			controllers.SimulatedKubelet, controllers.NodeIPAM, controllers.GarbageCollector}
	})
	cs, _ := testchain.Clients(t, c)
	ns := func(t *testing.T, name string) string {
		t.Helper()
		if _, err := cs.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		return name
	}
	t.Run("OrderedPodsAndClaims", func(t *testing.T) { orderedPodsAndClaims(t, cs, ns(t, "ordered")) })
	t.Run("RollingUpdateWithKubectl", func(t *testing.T) { rollingUpdateWithKubectl(t, c, cs, ns(t, "rolling")) })
	t.Run("ParallelOnDelete", func(t *testing.T) { parallelOnDelete(t, cs, ns(t, "ondelete")) })
	t.Run("ClaimRetention", func(t *testing.T) { claimRetention(t, cs, ns(t, "retention")) })
}

func statefulSet(name string, replicas int32, image string, claims ...string) *appsv1.StatefulSet {
	labels := map[string]string{"app": name}
	sts := &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.StatefulSetSpec{
			Replicas:    ptr.To(replicas),
			ServiceName: name,
			Selector:    &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: image}}},
			},
		},
	}
	for _, c := range claims {
		sts.Spec.VolumeClaimTemplates = append(sts.Spec.VolumeClaimTemplates, corev1.PersistentVolumeClaim{
			ObjectMeta: metav1.ObjectMeta{Name: c},
			Spec: corev1.PersistentVolumeClaimSpec{
				AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
			},
		})
	}
	return sts
}

func create(t *testing.T, cs kubernetes.Interface, ns string, sts *appsv1.StatefulSet) *appsv1.StatefulSet {
	t.Helper()
	created, err := cs.AppsV1().StatefulSets(ns).Create(context.Background(), sts, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return created
}

func patch(t *testing.T, cs kubernetes.Interface, ns, name, patch string) {
	t.Helper()
	if _, err := cs.AppsV1().StatefulSets(ns).Patch(context.Background(), name, types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
}

// waitRolledOut waits until the set has n ready pods, all of its template's revision, and
// returns it.
func waitRolledOut(t *testing.T, cs kubernetes.Interface, ns, name string, n int32) *appsv1.StatefulSet {
	t.Helper()
	var sts *appsv1.StatefulSet
	testchain.Eventually(t, fmt.Sprintf("%s to roll out %d pods", name, n), func(ctx context.Context) (bool, error) {
		var err error
		sts, err = cs.AppsV1().StatefulSets(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		st := sts.Status
		return st.ObservedGeneration == sts.Generation && st.Replicas == n && st.ReadyReplicas == n && st.AvailableReplicas == n &&
			st.UpdatedReplicas == n && st.CurrentReplicas == n && st.CurrentRevision == st.UpdateRevision, nil
	})
	return sts
}

func pods(t *testing.T, cs kubernetes.Interface, ns, selector string) []corev1.Pod {
	t.Helper()
	list, err := cs.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(list.Items, func(a, b corev1.Pod) int { return strings.Compare(a.Name, b.Name) })
	return list.Items
}

func readySince(p *corev1.Pod) time.Time {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
			return c.LastTransitionTime.Time
		}
	}
	return time.Time{}
}

// orderedPodsAndClaims: web-0, web-1, web-2 come one after the other, each once the one before
// is ready, with their claims (Pending: nothing provides storage), names, labels and the set's
// revision; scaled down, they go from the highest ordinal, one at a time, and the claims stay.
func orderedPodsAndClaims(t *testing.T, cs kubernetes.Interface, ns string) {
	ctx := context.Background()
	sts := create(t, cs, ns, statefulSet("web", 3, "nginx:1.26", "www"))
	got := waitRolledOut(t, cs, ns, "web", 3)
	list := pods(t, cs, ns, "app=web")
	if len(list) != 3 {
		t.Fatalf("%d pods, want 3", len(list))
	}
	for i, p := range list {
		name := fmt.Sprintf("web-%d", i)
		if p.Name != name || p.Labels[appsv1.StatefulSetPodNameLabel] != name || p.Labels[appsv1.PodIndexLabel] != fmt.Sprint(i) ||
			p.Labels[appsv1.ControllerRevisionHashLabelKey] != got.Status.UpdateRevision || p.Spec.Hostname != name || p.Spec.Subdomain != "web" {
			t.Errorf("pod %s: labels %v, hostname %q, subdomain %q", p.Name, p.Labels, p.Spec.Hostname, p.Spec.Subdomain)
		}
		if ref := metav1.GetControllerOf(&p); ref == nil || ref.UID != sts.UID {
			t.Errorf("pod %s is not controlled by its set: %+v", p.Name, p.OwnerReferences)
		}
		if i := slices.IndexFunc(p.Spec.Volumes, func(v corev1.Volume) bool { return v.Name == "www" }); i < 0 ||
			p.Spec.Volumes[i].PersistentVolumeClaim == nil || p.Spec.Volumes[i].PersistentVolumeClaim.ClaimName != "www-"+name {
			t.Errorf("pod %s volumes %+v", p.Name, p.Spec.Volumes)
		}
		// Timestamps have seconds, so a pod made once the one before was ready shows a
		// creation time no earlier than that readiness.
		if i > 0 && p.CreationTimestamp.Time.Before(readySince(&list[i-1])) {
			t.Errorf("%s created at %s, before %s was ready at %s", p.Name, p.CreationTimestamp, list[i-1].Name, readySince(&list[i-1]))
		}
	}
	claims, err := cs.CoreV1().PersistentVolumeClaims(ns).List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
	if err != nil {
		t.Fatal(err)
	}
	if len(claims.Items) != 3 {
		t.Fatalf("%d claims, want 3", len(claims.Items))
	}
	for _, c := range claims.Items {
		if !strings.HasPrefix(c.Name, "www-web-") || c.Status.Phase != corev1.ClaimPending || len(c.OwnerReferences) != 0 {
			t.Errorf("claim %s: phase %s, owners %+v", c.Name, c.Status.Phase, c.OwnerReferences)
		}
	}
	revs, err := cs.AppsV1().ControllerRevisions(ns).List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
	if err != nil {
		t.Fatal(err)
	}
	if len(revs.Items) != 1 || revs.Items[0].Name != got.Status.UpdateRevision || revs.Items[0].Revision != 1 || !metav1.IsControlledBy(&revs.Items[0], sts) {
		t.Errorf("revisions %+v, want one: %s", revs.Items, got.Status.UpdateRevision)
	}

	// Scale down: web-2 goes before web-1 starts to.
	w, err := cs.CoreV1().Pods(ns).Watch(ctx, metav1.ListOptions{LabelSelector: "app=web", ResourceVersion: podsVersion(t, cs, ns)})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	patch(t, cs, ns, "web", `{"spec":{"replicas":1}}`)
	var order []string // web-N leaving, web-N gone
	timeout := time.After(2 * time.Minute)
	for !slices.Contains(order, "web-1 gone") {
		select {
		case ev := <-w.ResultChan():
			p, ok := ev.Object.(*corev1.Pod)
			switch {
			case !ok:
			case ev.Type == watch.Deleted:
				order = append(order, p.Name+" gone")
			case p.DeletionTimestamp != nil && !slices.Contains(order, p.Name+" leaving"):
				order = append(order, p.Name+" leaving")
			}
		case <-timeout:
			t.Fatalf("web-1 never went; saw %v", order)
		}
	}
	if i, j := slices.Index(order, "web-2 gone"), slices.Index(order, "web-1 leaving"); i < 0 || j < i {
		t.Errorf("scale-down order %v: web-2 should be gone before web-1 leaves", order)
	}
	waitRolledOut(t, cs, ns, "web", 1)
	if claims, err := cs.CoreV1().PersistentVolumeClaims(ns).List(ctx, metav1.ListOptions{}); err != nil || len(claims.Items) != 3 {
		t.Errorf("claims after the scale-down: %v, %v; want all 3 kept", claims, err)
	}
}

func podsVersion(t *testing.T, cs kubernetes.Interface, ns string) string {
	t.Helper()
	list, err := cs.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return list.ResourceVersion
}

func images(t *testing.T, cs kubernetes.Interface, ns, selector string) []string {
	t.Helper()
	var out []string
	for _, p := range pods(t, cs, ns, selector) {
		out = append(out, p.Spec.Containers[0].Image)
	}
	return out
}

// rollingUpdateWithKubectl: a new image rolls out to the ordinals from the partition up only,
// then, with the partition at 0, to all; kubectl rollout status, history and undo read and
// write it as on a cluster, and kubectl scale scales it (its claim templates, served with an
// apiVersion and kind, must not look changed to the update that follows a watch).
func rollingUpdateWithKubectl(t *testing.T, c *chain.Chain, cs kubernetes.Interface, ns string) {
	kubectl := func(want string, args ...string) {
		t.Helper()
		out, err := testchain.Kubectl(t, c, append([]string{"-n", ns}, args...)...)
		if err != nil || !strings.Contains(out, want) {
			t.Fatalf("kubectl %s: %v\n%s\nwant %q", strings.Join(args, " "), err, out, want)
		}
	}
	create(t, cs, ns, statefulSet("db", 3, "postgres:16", "data"))
	kubectl("partitioned roll out complete: 3 new pods have been updated...", "rollout", "status", "statefulset/db", "--timeout=2m")
	first := waitRolledOut(t, cs, ns, "db", 3).Status.UpdateRevision

	patch(t, cs, ns, "db", `{"spec":{"updateStrategy":{"rollingUpdate":{"partition":2}},"template":{"spec":{"containers":[{"name":"nginx","image":"postgres:17"}]}}}}`)
	testchain.Eventually(t, "db-2 updated", func(ctx context.Context) (bool, error) {
		sts, err := cs.AppsV1().StatefulSets(ns).Get(ctx, "db", metav1.GetOptions{})
		st := sts.Status
		return err == nil && st.ObservedGeneration == sts.Generation && st.UpdatedReplicas == 1 && st.ReadyReplicas == 3 && st.CurrentReplicas == 2, err
	})
	if got := images(t, cs, ns, "app=db"); !slices.Equal(got, []string{"postgres:16", "postgres:16", "postgres:17"}) {
		t.Errorf("images %v: only db-2 is at or above the partition", got)
	}
	kubectl("partitioned roll out complete: 1 new pods have been updated...", "rollout", "status", "statefulset/db", "--timeout=2m")

	patch(t, cs, ns, "db", `{"spec":{"updateStrategy":{"rollingUpdate":{"partition":0}}}}`)
	second := waitRolledOut(t, cs, ns, "db", 3).Status.UpdateRevision
	if got := images(t, cs, ns, "app=db"); !slices.Equal(got, []string{"postgres:17", "postgres:17", "postgres:17"}) || second == first {
		t.Errorf("images %v, revisions %s then %s", got, first, second)
	}
	kubectl("REVISION  CHANGE-CAUSE\n1         <none>\n2         <none>", "rollout", "history", "statefulset/db")
	kubectl("postgres:16", "rollout", "history", "statefulset/db", "--revision=1")

	kubectl("statefulset.apps/db rolled back", "rollout", "undo", "statefulset/db")
	if got := waitRolledOut(t, cs, ns, "db", 3).Status.UpdateRevision; got != first {
		t.Errorf("after the undo the set runs revision %s, want the first, %s", got, first)
	}
	if got := images(t, cs, ns, "app=db"); !slices.Equal(got, []string{"postgres:16", "postgres:16", "postgres:16"}) {
		t.Errorf("images after the undo %v", got)
	}
	// The first template, rolled out again, took the next number.
	kubectl("REVISION  CHANGE-CAUSE\n2         <none>\n3         <none>", "rollout", "history", "statefulset/db")

	kubectl("statefulset.apps/db scaled", "scale", "statefulset", "db", "--replicas=2")
	waitRolledOut(t, cs, ns, "db", 2)
}

// parallelOnDelete: Parallel pods; with OnDelete a new template changes no pod until one is
// deleted, and that one comes back with it.
func parallelOnDelete(t *testing.T, cs kubernetes.Interface, ns string) {
	ctx := context.Background()
	sts := statefulSet("cache", 3, "redis:7")
	sts.Spec.PodManagementPolicy = appsv1.ParallelPodManagement
	sts.Spec.UpdateStrategy = appsv1.StatefulSetUpdateStrategy{Type: appsv1.OnDeleteStatefulSetStrategyType}
	create(t, cs, ns, sts)
	before := waitRolledOut(t, cs, ns, "cache", 3)
	uids := func() (out []types.UID) {
		for _, p := range pods(t, cs, ns, "app=cache") {
			out = append(out, p.UID)
		}
		return out
	}
	was := uids()

	patch(t, cs, ns, "cache", `{"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"redis:8"}]}}}}`)
	var after *appsv1.StatefulSet
	testchain.Eventually(t, "the new revision seen", func(ctx context.Context) (bool, error) {
		var err error
		after, err = cs.AppsV1().StatefulSets(ns).Get(ctx, "cache", metav1.GetOptions{})
		return err == nil && after.Status.ObservedGeneration == after.Generation, err
	})
	// The status comes after the sync's pod writes: had it deleted a pod, it would show.
	if st := after.Status; st.UpdateRevision == before.Status.UpdateRevision || st.CurrentRevision != before.Status.CurrentRevision ||
		st.UpdatedReplicas != 0 || st.CurrentReplicas != 3 || !slices.Equal(uids(), was) {
		t.Errorf("OnDelete status %+v, pods %v (were %v): nothing should have changed", st, uids(), was)
	}

	if err := cs.CoreV1().Pods(ns).Delete(ctx, "cache-1", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	testchain.Eventually(t, "cache-1 back, updated", func(ctx context.Context) (bool, error) {
		p, err := cs.CoreV1().Pods(ns).Get(ctx, "cache-1", metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		return p.UID != was[1] && p.Labels[appsv1.ControllerRevisionHashLabelKey] == after.Status.UpdateRevision && !readySince(p).IsZero(), nil
	})
	if got := images(t, cs, ns, "app=cache"); !slices.Equal(got, []string{"redis:7", "redis:8", "redis:7"}) {
		t.Errorf("images %v: only the deleted pod is updated", got)
	}
}

// claimRetention: with whenDeleted and whenScaled Delete, the claims are owned by the set, and
// a pod scaled away takes its claims with it (deleted: the protection finalizer keeps them
// Terminating, as the chain has no pvc-protection controller); deleting the set deletes the rest.
func claimRetention(t *testing.T, cs kubernetes.Interface, ns string) {
	ctx := context.Background()
	sts := statefulSet("kv", 2, "etcd:3.6", "data")
	sts.Spec.PersistentVolumeClaimRetentionPolicy = &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{
		WhenDeleted: appsv1.DeletePersistentVolumeClaimRetentionPolicyType,
		WhenScaled:  appsv1.DeletePersistentVolumeClaimRetentionPolicyType,
	}
	sts = create(t, cs, ns, sts)
	waitRolledOut(t, cs, ns, "kv", 2)
	claim := func(name string) *corev1.PersistentVolumeClaim {
		c, err := cs.CoreV1().PersistentVolumeClaims(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	for _, name := range []string{"data-kv-0", "data-kv-1"} {
		if refs := claim(name).OwnerReferences; len(refs) != 1 || refs[0].UID != sts.UID {
			t.Errorf("claim %s owners %+v, want the set", name, refs)
		}
	}
	// Deleted is gone or Terminating. Any other error fails the wait: counted as deleted, the
	// poll's own deadline error would pass a claim that was never deleted.
	deleted := func(name string) func(context.Context) (bool, error) {
		return func(ctx context.Context) (bool, error) {
			c, err := cs.CoreV1().PersistentVolumeClaims(ns).Get(ctx, name, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return true, nil
			}
			return err == nil && c.DeletionTimestamp != nil, err
		}
	}

	patch(t, cs, ns, "kv", `{"spec":{"replicas":1}}`)
	testchain.Eventually(t, "data-kv-1 deleted with its pod", deleted("data-kv-1"))
	if c := claim("data-kv-0"); c.DeletionTimestamp != nil || len(c.OwnerReferences) != 1 {
		t.Errorf("data-kv-0, whose pod stays: owners %+v, deletion %v", c.OwnerReferences, c.DeletionTimestamp)
	}

	if err := cs.AppsV1().StatefulSets(ns).Delete(ctx, "kv", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	testchain.Eventually(t, "data-kv-0 deleted with the set", deleted("data-kv-0"))
}
