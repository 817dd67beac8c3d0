package core

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/apichain/apichain/servers/core/validation/validationtest"
)

func TestNamespace(t *testing.T) {
	ns := func(doc string) *corev1.Namespace {
		n := &corev1.Namespace{}
		validationtest.Decode(t, n, doc)
		return n
	}
	validationtest.Expect(t, "valid", ValidateNamespace(ns(`metadata: {name: team-a}`)))
	validationtest.Expect(t, "invalid", ValidateNamespace(ns(`{metadata: {name: a.b}, spec: {finalizers: [kubernetes, mine, example.com/x]}}`)),
		`metadata.name: Invalid value: "a.b": must not contain dots`,
		`spec.finalizers: Invalid value: "mine": name is neither a standard finalizer name nor is it fully qualified`)

	old := ns(`metadata: {name: team-a, resourceVersion: "1"}`)
	old.Status.Phase = corev1.NamespaceActive
	terminating := old.DeepCopy()
	terminating.Status.Phase = corev1.NamespaceTerminating
	validationtest.Expect(t, "terminating while not deleted", ValidateNamespaceStatusUpdate(terminating, old),
		"status.Phase: Invalid value: \"Terminating\": may only be 'Active' if `deletionTimestamp` is empty")
	deleted := old.DeepCopy()
	deleted.DeletionTimestamp = &metav1.Time{}
	*deleted.DeletionTimestamp = metav1.Now()
	old.DeletionTimestamp = deleted.DeletionTimestamp
	validationtest.Expect(t, "active while deleted", ValidateNamespaceStatusUpdate(deleted, old),
		"status.Phase: Invalid value: \"Active\": may only be 'Terminating' if `deletionTimestamp` is not empty")

	finalized := old.DeepCopy()
	finalized.Spec.Finalizers = []corev1.FinalizerName{"kubernetes", "bad/name/x"}
	validationtest.Expect(t, "finalize", ValidateNamespaceFinalizeUpdate(finalized, old),
		`spec.finalizers[1]: Invalid value: "bad/name/x": a valid label key must consist of`)
}
