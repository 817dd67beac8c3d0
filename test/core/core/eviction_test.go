package core_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"

	"github.com/apichain/apichain/test/testchain"
)

// runningPod creates a pod labelled app=<app> and reports it Running (and Ready, if ready) through
// pods/status, as a kubelet would.
func runningPod(t *testing.T, cs kubernetes.Interface, ns, name, app string, ready bool) {
	t.Helper()
	ctx := context.Background()
	p, err := cs.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": app}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	p.Status.Phase = corev1.PodRunning
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: status}}
	if _, err := cs.CoreV1().Pods(ns).UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// pdbWithStatus creates a budget for app=<app> and sets its status as the disruption controller
// would.
func pdbWithStatus(t *testing.T, cs kubernetes.Interface, ns, app string, status policyv1.PodDisruptionBudgetStatus, policy *policyv1.UnhealthyPodEvictionPolicyType) {
	t.Helper()
	ctx := context.Background()
	minAvailable := intstr.FromInt32(1)
	pdb, err := cs.PolicyV1().PodDisruptionBudgets(ns).Create(ctx, &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: app},
		Spec:       policyv1.PodDisruptionBudgetSpec{MinAvailable: &minAvailable, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}, UnhealthyPodEvictionPolicy: policy},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pdb.Status = status
	pdb.Status.ObservedGeneration = pdb.Generation
	if _, err := cs.PolicyV1().PodDisruptionBudgets(ns).UpdateStatus(ctx, pdb, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// evict POSTs an Eviction for the pod and returns the answer.
func evict(t *testing.T, ns, name, query string, deleteOptions *metav1.DeleteOptions) (int, metav1.Status) {
	t.Helper()
	body, _ := json.Marshal(&policyv1.Eviction{
		TypeMeta:      metav1.TypeMeta{APIVersion: "policy/v1", Kind: "Eviction"},
		ObjectMeta:    metav1.ObjectMeta{Name: name, Namespace: ns},
		DeleteOptions: deleteOptions,
	})
	resp, out := testchain.Do(t, shared.Admin, "POST", fmt.Sprintf("/api/v1/namespaces/%s/pods/%s/eviction%s", ns, name, query), body, "application/json")
	var st metav1.Status
	if err := json.Unmarshal(out, &st); err != nil {
		t.Fatalf("not a Status: %s", out)
	}
	return resp.StatusCode, st
}

// TestEvictionHonoursDisruptionBudgets follows kube-apiserver's pods/eviction: without a budget
// the pod goes; a budget with no disruption to spare answers 429; one with a disruption to spare
// lets the pod go and records it; dry runs change nothing.
func TestEvictionHonoursDisruptionBudgets(t *testing.T) {
	cs, _ := testchain.Clients(t, shared)
	ns := testchain.Namespace(t, shared)
	ctx := context.Background()
	gone := func(name string) bool {
		_, err := cs.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	}

	t.Run("no budget", func(t *testing.T) {
		runningPod(t, cs, ns, "free", "free", true)
		if code, st := evict(t, ns, "free", "", nil); code != 201 || st.Status != metav1.StatusSuccess {
			t.Fatalf("evict: %d %+v", code, st)
		}
		if !gone("free") {
			t.Error("evicted pod still there")
		}
		if code, st := evict(t, ns, "free", "", nil); code != 404 || st.Reason != metav1.StatusReasonNotFound {
			t.Errorf("evicting a missing pod: %d %+v", code, st)
		}
	})

	t.Run("budget exhausted", func(t *testing.T) {
		runningPod(t, cs, ns, "guarded", "guarded", true)
		pdbWithStatus(t, cs, ns, "guarded", policyv1.PodDisruptionBudgetStatus{CurrentHealthy: 1, DesiredHealthy: 1, ExpectedPods: 1, DisruptionsAllowed: 0}, nil)
		code, st := evict(t, ns, "guarded", "", nil)
		if code != 429 || st.Reason != metav1.StatusReasonTooManyRequests || st.Message != "Cannot evict pod as it would violate the pod's disruption budget." {
			t.Fatalf("evict: %d %+v", code, st)
		}
		if st.Details == nil || len(st.Details.Causes) != 1 || st.Details.Causes[0].Type != policyv1.DisruptionBudgetCause ||
			st.Details.Causes[0].Message != "The disruption budget guarded needs 1 healthy pods and has 1 currently" {
			t.Errorf("causes: %+v", st.Details)
		}
		if gone("guarded") {
			t.Error("the pod was deleted despite its budget")
		}
		// client-go's eviction client sees the same.
		err := cs.CoreV1().Pods(ns).EvictV1(ctx, &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: "guarded", Namespace: ns}})
		if !apierrors.IsTooManyRequests(err) {
			t.Errorf("EvictV1: %v", err)
		}
	})

	t.Run("budget with a disruption to spare", func(t *testing.T) {
		runningPod(t, cs, ns, "spare-1", "spare", true)
		runningPod(t, cs, ns, "spare-2", "spare", true)
		pdbWithStatus(t, cs, ns, "spare", policyv1.PodDisruptionBudgetStatus{CurrentHealthy: 2, DesiredHealthy: 1, ExpectedPods: 2, DisruptionsAllowed: 1}, nil)

		// A dry run answers as the real thing would and changes nothing.
		if code, st := evict(t, ns, "spare-1", "?dryRun=All", nil); code != 201 || st.Status != metav1.StatusSuccess {
			t.Fatalf("dry-run evict: %d %+v", code, st)
		}
		pdb, _ := cs.PolicyV1().PodDisruptionBudgets(ns).Get(ctx, "spare", metav1.GetOptions{})
		if gone("spare-1") || pdb.Status.DisruptionsAllowed != 1 || len(pdb.Status.DisruptedPods) != 0 {
			t.Fatalf("dry run changed something: pod gone %v, pdb status %+v", gone("spare-1"), pdb.Status)
		}

		if code, st := evict(t, ns, "spare-1", "", &metav1.DeleteOptions{GracePeriodSeconds: new(int64)}); code != 201 || st.Status != metav1.StatusSuccess {
			t.Fatalf("evict: %d %+v", code, st)
		}
		if !gone("spare-1") {
			t.Error("evicted pod still there")
		}
		pdb, err := cs.PolicyV1().PodDisruptionBudgets(ns).Get(ctx, "spare", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, noted := pdb.Status.DisruptedPods["spare-1"]; pdb.Status.DisruptionsAllowed != 0 || !noted {
			t.Errorf("budget after the eviction: %+v", pdb.Status)
		}
		if c := findCondition(pdb.Status.Conditions, policyv1.DisruptionAllowedCondition); c == nil || c.Status != metav1.ConditionFalse || c.Reason != policyv1.InsufficientPodsReason {
			t.Errorf("DisruptionAllowed condition: %+v", pdb.Status.Conditions)
		}
		// The budget is now spent: the second pod stays.
		if code, _ := evict(t, ns, "spare-2", "", nil); code != 429 {
			t.Errorf("second eviction: %d, want 429", code)
		}
	})

	t.Run("unhealthy pods", func(t *testing.T) {
		always := policyv1.AlwaysAllow
		runningPod(t, cs, ns, "sick", "sick", false)
		pdbWithStatus(t, cs, ns, "sick", policyv1.PodDisruptionBudgetStatus{CurrentHealthy: 0, DesiredHealthy: 1, ExpectedPods: 1}, &always)
		if code, st := evict(t, ns, "sick", "", nil); code != 201 || !gone("sick") {
			t.Errorf("evicting an unready pod under AlwaysAllow: %d %+v", code, st)
		}
		runningPod(t, cs, ns, "sick-guarded", "sick-guarded", false)
		pdbWithStatus(t, cs, ns, "sick-guarded", policyv1.PodDisruptionBudgetStatus{CurrentHealthy: 0, DesiredHealthy: 1, ExpectedPods: 1}, nil)
		if code, _ := evict(t, ns, "sick-guarded", "", nil); code != 429 || gone("sick-guarded") {
			t.Errorf("evicting an unready pod under IfHealthyBudget with an unhealthy application: %d", code)
		}
	})

	t.Run("pending pods ignore budgets", func(t *testing.T) {
		if _, err := cs.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "pending", Labels: map[string]string{"app": "guarded"}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if code, st := evict(t, ns, "pending", "", nil); code != 201 || !gone("pending") {
			t.Errorf("evicting a pending pod: %d %+v", code, st)
		}
	})

	t.Run("bad requests", func(t *testing.T) {
		runningPod(t, cs, ns, "named", "named", true)
		body := []byte(`{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"other"}}`)
		resp, out := testchain.Do(t, shared.Admin, "POST", "/api/v1/namespaces/"+ns+"/pods/named/eviction", body, "application/json")
		if resp.StatusCode != 400 || !strings.Contains(string(out), "name in URL does not match name in Eviction object") {
			t.Errorf("mismatched name: %d %s", resp.StatusCode, out)
		}
		code, st := evict(t, ns, "named", "", &metav1.DeleteOptions{IgnoreStoreReadErrorWithClusterBreakingPotential: func() *bool { b := true; return &b }()})
		if code != 422 || !strings.Contains(st.Message, "deleteOptions.ignoreStoreReadErrorWithClusterBreakingPotential: Invalid value: true: can not be set for pod eviction, try after removing the option") {
			t.Errorf("ignoreStoreReadError: %d %+v", code, st)
		}
		code, st = evict(t, ns, "named", "?dryRun=All", &metav1.DeleteOptions{DryRun: []string{"Other"}})
		if code != 500 || !strings.Contains(st.Message, "Non-matching dry-run options in request and content") {
			t.Errorf("mismatched dry-run options: %d %+v", code, st)
		}
	})
}

func findCondition(conditions []metav1.Condition, typ string) *metav1.Condition {
	for i := range conditions {
		if conditions[i].Type == typ {
			return &conditions[i]
		}
	}
	return nil
}
