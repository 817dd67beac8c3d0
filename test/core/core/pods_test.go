package core_test

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/apichain/apichain/test/core/coretest"
	"github.com/apichain/apichain/test/testchain"
)

func TestPodDefaultsAndStatus(t *testing.T) {
	cs, _ := testchain.Clients(t, shared)
	ns := testchain.Namespace(t, shared)
	p, err := cs.CoreV1().Pods(ns).Create(context.Background(), coretest.Pod("p"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c := p.Spec.Containers[0]
	if p.Spec.RestartPolicy != corev1.RestartPolicyAlways || p.Spec.DNSPolicy != corev1.DNSClusterFirst ||
		p.Spec.SchedulerName != "default-scheduler" || p.Spec.TerminationGracePeriodSeconds == nil || *p.Spec.TerminationGracePeriodSeconds != 30 ||
		c.ImagePullPolicy != corev1.PullIfNotPresent || c.TerminationMessagePath != "/dev/termination-log" ||
		p.Spec.EnableServiceLinks == nil || !*p.Spec.EnableServiceLinks || p.Spec.SecurityContext == nil {
		t.Errorf("pod not defaulted as kube-apiserver defaults it: %+v", p.Spec)
	}
	if p.Status.Phase != corev1.PodPending || p.Status.QOSClass != corev1.PodQOSBestEffort || p.Generation != 1 {
		t.Errorf("status %+v, generation %d", p.Status, p.Generation)
	}
	// Status sent to the main resource is ignored; /status changes only status.
	p.Status.Phase = corev1.PodRunning
	p.Labels = map[string]string{"a": "b"}
	p, err = cs.CoreV1().Pods(ns).Update(context.Background(), p, metav1.UpdateOptions{})
	if err != nil || p.Status.Phase != corev1.PodPending || p.Labels["a"] != "b" {
		t.Fatalf("update main resource: %v, phase %s, labels %v", err, p.Status.Phase, p.Labels)
	}
	p.Status.Phase = corev1.PodRunning
	p.Labels = map[string]string{"a": "changed"}
	p, err = cs.CoreV1().Pods(ns).UpdateStatus(context.Background(), p, metav1.UpdateOptions{})
	if err != nil || p.Status.Phase != corev1.PodRunning || p.Labels["a"] != "b" {
		t.Errorf("update /status: %v, phase %s, labels %v", err, p.Status.Phase, p.Labels)
	}
}

func TestPodBindingAndFieldSelectors(t *testing.T) {
	cs, _ := testchain.Clients(t, shared)
	ns := testchain.Namespace(t, shared)
	ctx := context.Background()
	pods := cs.CoreV1().Pods(ns)
	for _, n := range []string{"bound", "pending"} {
		if _, err := pods.Create(ctx, coretest.Pod(n), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	binding := &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: "bound"}, Target: corev1.ObjectReference{Kind: "Node", Name: "node-1"}}
	if err := pods.Bind(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatalf("bind: %v", err)
	}
	p, err := pods.Get(ctx, "bound", metav1.GetOptions{})
	if err != nil || p.Spec.NodeName != "node-1" {
		t.Fatalf("after bind: %v, nodeName %q", err, p.Spec.NodeName)
	}
	if len(p.Status.Conditions) != 1 || p.Status.Conditions[0].Type != corev1.PodScheduled || p.Status.Conditions[0].Status != corev1.ConditionTrue {
		t.Errorf("conditions after bind: %+v", p.Status.Conditions)
	}
	err = pods.Bind(ctx, binding, metav1.CreateOptions{})
	if !apierrors.IsConflict(err) || !strings.Contains(err.Error(), `is already assigned to node "node-1"`) {
		t.Errorf("second bind: %v, want Conflict", err)
	}

	for selector, want := range map[string]string{
		"spec.nodeName=node-1":                 "bound",
		"spec.nodeName=":                       "pending",
		"status.phase=Pending,spec.nodeName!=": "bound",
	} {
		l, err := pods.List(ctx, metav1.ListOptions{FieldSelector: selector})
		if err != nil {
			t.Errorf("field selector %q: %v", selector, err)
			continue
		}
		if len(l.Items) != 1 || l.Items[0].Name != want {
			t.Errorf("field selector %q: got %d items, want %s", selector, len(l.Items), want)
		}
	}
	_, err = pods.List(ctx, metav1.ListOptions{FieldSelector: "spec.nope=x"})
	if !apierrors.IsBadRequest(err) || !strings.Contains(err.Error(), "field label not supported: spec.nope") {
		t.Errorf("unknown field selector: %v, want BadRequest", err)
	}
	// A bound pod is deleted gracefully (the kubelet finishes it); an unbound one at once.
	if err := pods.Delete(ctx, "pending", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := pods.Get(ctx, "pending", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("unbound pod after delete: %v", err)
	}
	if err := pods.Delete(ctx, "bound", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	p, err = pods.Get(ctx, "bound", metav1.GetOptions{})
	if err != nil || p.DeletionTimestamp == nil || *p.DeletionGracePeriodSeconds != 30 {
		t.Errorf("bound pod after delete: %v %+v", err, p.ObjectMeta)
	}
}

func TestOtherFieldSelectors(t *testing.T) {
	cs, _ := testchain.Clients(t, shared)
	ns := testchain.Namespace(t, shared)
	ctx := context.Background()
	if _, err := cs.CoreV1().Secrets(ns).Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "tls"}, Type: corev1.SecretTypeOpaque}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	l, err := cs.CoreV1().Secrets(ns).List(ctx, metav1.ListOptions{FieldSelector: "type=Opaque"})
	if err != nil || len(l.Items) != 1 {
		t.Errorf("secrets by type: %v %d", err, len(l.Items))
	}
	ev := &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "e"}, InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "web", Namespace: ns}, Reason: "Started", Message: "m", Type: "Normal"}
	if _, err := cs.CoreV1().Events(ns).Create(ctx, ev, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, sel := range []string{"involvedObject.name=web", "involvedObject.kind=Pod,reason=Started", "type=Normal"} {
		l, err := cs.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: sel})
		if err != nil || len(l.Items) != 1 {
			t.Errorf("events by %q: %v, %d items", sel, err, len(l.Items))
		}
	}
	nl, err := cs.CoreV1().Namespaces().List(ctx, metav1.ListOptions{FieldSelector: "status.phase=Active,metadata.name=" + ns})
	if err != nil || len(nl.Items) != 1 {
		t.Errorf("namespaces by phase: %v", err)
	}
	// ConfigMaps accept only the metadata fields, with kube-apiserver's message.
	_, err = cs.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{FieldSelector: "data.a=b"})
	if !apierrors.IsBadRequest(err) {
		t.Errorf("configmaps by data.a: %v, want BadRequest", err)
	}
}

func TestSecretStringDataIsMergedIntoData(t *testing.T) {
	cs, _ := testchain.Clients(t, shared)
	ns := testchain.Namespace(t, shared)
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s"}, Data: map[string][]byte{"a": []byte("old"), "b": []byte("keep")}, StringData: map[string]string{"a": "new"}}
	got, err := cs.CoreV1().Secrets(ns).Create(context.Background(), s, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if string(got.Data["a"]) != "new" || string(got.Data["b"]) != "keep" || got.StringData != nil || got.Type != corev1.SecretTypeOpaque {
		t.Errorf("secret: data %v stringData %v type %q", got.Data, got.StringData, got.Type)
	}
}

func TestNamespaceLifecycle(t *testing.T) {
	cs, _ := testchain.Clients(t, shared)
	ctx := context.Background()
	// No objects in a namespace that does not exist.
	_, err := cs.CoreV1().ConfigMaps("no-such-namespace").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "x"}}, metav1.CreateOptions{})
	if !apierrors.IsNotFound(err) {
		t.Errorf("create in a missing namespace: %v, want NotFound", err)
	}
	ns := testchain.Namespace(t, shared)
	got, err := cs.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
	if err != nil || got.Labels["kubernetes.io/metadata.name"] != ns || len(got.Spec.Finalizers) != 1 || got.Status.Phase != corev1.NamespaceActive {
		t.Fatalf("new namespace: %v %+v", err, got)
	}
	if err := cs.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	// Terminating: nothing new may be created in it.
	_, err = cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "x"}}, metav1.CreateOptions{})
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "because it is being terminated") {
		t.Errorf("create in a terminating namespace: %v, want Forbidden", err)
	}
	// The namespace controller reports progress through /status: that does not delete it.
	got, err = cs.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got.Status.Conditions = []corev1.NamespaceCondition{{Type: corev1.NamespaceContentRemaining, Status: corev1.ConditionTrue, Reason: "SomeResourcesRemain", Message: "m"}}
	if got, err = cs.CoreV1().Namespaces().UpdateStatus(ctx, got, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if got, err = cs.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{}); err != nil || len(got.Status.Conditions) != 1 {
		t.Fatalf("terminating namespace after a status update: %v %+v", err, got.Status)
	}
	// What the namespace controller does once the namespace is empty: /finalize, then it is gone.
	got.Spec.Finalizers = nil
	if _, err := cs.CoreV1().Namespaces().Finalize(ctx, got, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("finalize: %v", err)
	}
	if _, err := cs.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("namespace after finalize: %v, want NotFound", err)
	}
}
