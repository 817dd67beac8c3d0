package admission_test

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/apichain/apichain/test/testchain"
)

func dryRunPod(t *testing.T, cs kubernetes.Interface, ns string, mutate func(*corev1.Pod)) (*corev1.Pod, error) {
	t.Helper()
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}
	mutate(pod)
	return cs.CoreV1().Pods(ns).Create(context.Background(), pod, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
}

// TestPriorityAdmission: the Priority plugin resolves classes into priorities, uses the global
// default class, rejects unknown classes and a second default.
func TestPriorityAdmission(t *testing.T) {
	cs, _ := testchain.Clients(t, shared)
	ctx := context.Background()
	ns := testchain.Namespace(t, shared)
	pod, err := dryRunPod(t, cs, ns, func(p *corev1.Pod) { p.Spec.PriorityClassName = "system-node-critical" })
	if err != nil || *pod.Spec.Priority != 2000001000 || *pod.Spec.PreemptionPolicy != corev1.PreemptLowerPriority {
		t.Errorf("system class: %v %v", err, pod.Spec.Priority)
	}
	_, err = dryRunPod(t, cs, ns, func(p *corev1.Pod) { p.Spec.PriorityClassName = "nope" })
	if want := `pods "p" is forbidden: no PriorityClass with name nope was found`; err == nil || err.Error() != want {
		t.Errorf("unknown class: %v, want %s", err, want)
	}
	_, err = dryRunPod(t, cs, ns, func(p *corev1.Pod) { p.Spec.Priority = ptr.To[int32](5) })
	if want := `pods "p" is forbidden: the integer value of priority (5) must not be provided in pod spec; priority admission controller computed 0 from the given PriorityClass name`; err == nil || err.Error() != want {
		t.Errorf("priority set: %v, want %s", err, want)
	}

	never, err := cs.SchedulingV1().PriorityClasses().Create(ctx, &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: ns + "-default"},
		Value: 77, GlobalDefault: true, PreemptionPolicy: ptr.To(corev1.PreemptNever)}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.SchedulingV1().PriorityClasses().Delete(ctx, never.Name, metav1.DeleteOptions{})
		// Other tests expect no default class: wait until admission no longer sees this one.
		testchain.WaitFor(t, func() bool {
			pod, err := dryRunPod(t, cs, ns, func(*corev1.Pod) {})
			return err == nil && *pod.Spec.Priority == 0
		})
	})
	testchain.WaitFor(t, func() bool {
		pod, err := dryRunPod(t, cs, ns, func(*corev1.Pod) {})
		return err == nil && *pod.Spec.Priority == 77 && pod.Spec.PriorityClassName == never.Name && *pod.Spec.PreemptionPolicy == corev1.PreemptNever
	})
	_, err = cs.SchedulingV1().PriorityClasses().Create(ctx, &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: ns + "-second"}, Value: 78, GlobalDefault: true}, metav1.CreateOptions{})
	if want := `priorityclasses.scheduling.k8s.io "` + ns + `-second" is forbidden: PriorityClass ` + never.Name + ` is already marked as default. Only one default can exist`; err == nil || err.Error() != want {
		t.Errorf("second default: %v\n want %s", err, want)
	}
}

// TestNodeAndPodDefaultsFromAdmission: new nodes are tainted not-ready (TaintNodesByCondition),
// pods tolerate not-ready and unreachable for 300 s (DefaultTolerationSeconds) unless they say
// otherwise.
func TestNodeAndPodDefaultsFromAdmission(t *testing.T) {
	cs, _ := testchain.Clients(t, shared)
	ctx := context.Background()
	ns := testchain.Namespace(t, shared)
	node, err := cs.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: ns + "-node"},
		Spec: corev1.NodeSpec{Taints: []corev1.Taint{{Key: "dedicated", Value: "x", Effect: corev1.TaintEffectNoSchedule}}}}, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	want := []corev1.Taint{{Key: "dedicated", Value: "x", Effect: corev1.TaintEffectNoSchedule}, {Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule}}
	if err != nil || len(node.Spec.Taints) != 2 || node.Spec.Taints[0] != want[0] || node.Spec.Taints[1] != want[1] {
		t.Errorf("node taints: %v %+v", err, node.Spec.Taints)
	}
	pod, err := dryRunPod(t, cs, ns, func(p *corev1.Pod) {
		p.Spec.Tolerations = []corev1.Toleration{{Key: corev1.TaintNodeUnreachable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](10)}}
	})
	if err != nil || len(pod.Spec.Tolerations) != 2 || *pod.Spec.Tolerations[0].TolerationSeconds != 10 ||
		pod.Spec.Tolerations[1].Key != corev1.TaintNodeNotReady || *pod.Spec.Tolerations[1].TolerationSeconds != 300 {
		t.Errorf("pod tolerations: %v %+v", err, pod.Spec.Tolerations)
	}
}

// TestDefaultClassesFromAdmission: a claim without a class gets the default StorageClass, an
// Ingress without a class the default IngressClass; newest default wins.
func TestDefaultClassesFromAdmission(t *testing.T) {
	cs, _ := testchain.Clients(t, shared)
	ctx := context.Background()
	ns := testchain.Namespace(t, shared)
	claim := func() (*corev1.PersistentVolumeClaim, error) {
		return cs.CoreV1().PersistentVolumeClaims(ns).Create(ctx, &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "c"},
			Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}}},
			metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	}
	ingress := func() (*networkingv1.Ingress, error) {
		return cs.NetworkingV1().Ingresses(ns).Create(ctx, &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: "i"},
			Spec: networkingv1.IngressSpec{DefaultBackend: &networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: "s", Port: networkingv1.ServiceBackendPort{Number: 80}}}}},
			metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	}
	sc, err := cs.StorageV1().StorageClasses().Create(ctx, &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: ns + "-default",
		Annotations: map[string]string{"storageclass.kubernetes.io/is-default-class": "true"}}, Provisioner: "example.com/x"}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ic, err := cs.NetworkingV1().IngressClasses().Create(ctx, &networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: ns + "-default",
		Annotations: map[string]string{networkingv1.AnnotationIsDefaultIngressClass: "true"}}, Spec: networkingv1.IngressClassSpec{Controller: "example.com/x"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.StorageV1().StorageClasses().Delete(ctx, sc.Name, metav1.DeleteOptions{})
		_ = cs.NetworkingV1().IngressClasses().Delete(ctx, ic.Name, metav1.DeleteOptions{})
		// Other tests expect no default class: wait until admission no longer sees these.
		testchain.WaitFor(t, func() bool {
			c, err1 := claim()
			i, err2 := ingress()
			return err1 == nil && err2 == nil && c.Spec.StorageClassName == nil && i.Spec.IngressClassName == nil
		})
	})
	testchain.WaitFor(t, func() bool {
		c, err1 := claim()
		i, err2 := ingress()
		return err1 == nil && err2 == nil && ptr.Deref(c.Spec.StorageClassName, "") == sc.Name && ptr.Deref(i.Spec.IngressClassName, "") == ic.Name
	})
	// In a list, kubectl shows the effective default class.
	if out, _ := testchain.KubectlInput(t, shared, "", "get", "storageclass"); !strings.Contains(out, sc.Name+" (default)") {
		t.Errorf("kubectl get storageclass:\n%s", out)
	}
}
