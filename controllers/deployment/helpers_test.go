package deployment_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
)

// env is one subtest's namespace in the package's chain.
type env struct {
	t          *testing.T
	cs         kubernetes.Interface
	ns         string
	kubeconfig string
}

func newEnv(t *testing.T, cs kubernetes.Interface, kubeconfig, ns string) *env {
	t.Helper()
	if _, err := cs.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return &env{t: t, cs: cs, ns: ns, kubeconfig: kubeconfig}
}

// deployment is what kubectl create deployment name --image=image --replicas=n sends.
func deployment(name, image string, n int32) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(n),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: image}}},
			},
		},
	}
}

func (e *env) create(d *appsv1.Deployment) *appsv1.Deployment {
	e.t.Helper()
	created, err := e.cs.AppsV1().Deployments(e.ns).Create(context.Background(), d, metav1.CreateOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	return created
}

func (e *env) patch(name, patch string) {
	e.t.Helper()
	if _, err := e.cs.AppsV1().Deployments(e.ns).Patch(context.Background(), name, types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) poll(what string, cond func(context.Context) (bool, error)) {
	e.t.Helper()
	if err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, 2*time.Minute, true, cond); err != nil {
		e.t.Fatalf("waiting for %s: %v", what, err)
	}
}

// waitComplete waits until the deployment has rolled out n available replicas, and returns it.
func (e *env) waitComplete(name string, n int32) *appsv1.Deployment {
	e.t.Helper()
	var d *appsv1.Deployment
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		var err error
		d, err = e.cs.AppsV1().Deployments(e.ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		st := d.Status
		return st.ObservedGeneration == d.Generation && *d.Spec.Replicas == n && st.Replicas == n && st.UpdatedReplicas == n &&
			st.ReadyReplicas == n && st.AvailableReplicas == n && st.UnavailableReplicas == 0 &&
			ptr.Deref(st.TerminatingReplicas, 0) == 0 && progressReason(d) == "NewReplicaSetAvailable", nil
	})
	if err != nil {
		e.t.Fatalf("deployment %s never rolled out %d replicas: %+v", name, n, d.Status)
	}
	return d
}

func progressReason(d *appsv1.Deployment) string {
	for _, c := range d.Status.Conditions {
		if c.Type == appsv1.DeploymentProgressing && c.Status == corev1.ConditionTrue {
			return c.Reason
		}
	}
	return ""
}

func (e *env) replicaSets(deployment string) []appsv1.ReplicaSet {
	e.t.Helper()
	list, err := e.cs.AppsV1().ReplicaSets(e.ns).List(context.Background(), metav1.ListOptions{LabelSelector: "app=" + deployment})
	if err != nil {
		e.t.Fatal(err)
	}
	return list.Items
}

// byRevision finds the deployment's ReplicaSet of revision rev.
func (e *env) byRevision(deployment, rev string) appsv1.ReplicaSet {
	e.t.Helper()
	for _, rs := range e.replicaSets(deployment) {
		if rs.Annotations["deployment.kubernetes.io/revision"] == rev {
			return rs
		}
	}
	e.t.Fatalf("no ReplicaSet of %s has revision %s", deployment, rev)
	return appsv1.ReplicaSet{}
}

// checkPods waits until rs has exactly n pods, Running, ready, with image, named
// <replicaset>-<5 characters> and controlled by rs.
func (e *env) checkPods(rs appsv1.ReplicaSet, n int32, image string) {
	e.t.Helper()
	var pods []corev1.Pod
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		list, err := e.cs.CoreV1().Pods(e.ns).List(ctx, metav1.ListOptions{
			LabelSelector: appsv1.DefaultDeploymentUniqueLabelKey + "=" + rs.Labels[appsv1.DefaultDeploymentUniqueLabelKey]})
		if err != nil {
			return false, err
		}
		pods = list.Items
		if int32(len(pods)) != n {
			return false, nil
		}
		for _, p := range pods {
			if p.Status.Phase != corev1.PodRunning || p.DeletionTimestamp != nil || p.Spec.Containers[0].Image != image {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		e.t.Fatalf("pods of %s: want %d Running with %s, have %d", rs.Name, n, image, len(pods))
	}
	for _, p := range pods {
		suffix, ok := strings.CutPrefix(p.Name, rs.Name+"-")
		if !ok || len(suffix) != 5 || p.Spec.NodeName == "" {
			e.t.Errorf("pod %s (node %q) of ReplicaSet %s", p.Name, p.Spec.NodeName, rs.Name)
		}
		checkController(e.t, p.OwnerReferences, "ReplicaSet", rs.Name, rs.UID)
	}
}

func checkController(t *testing.T, refs []metav1.OwnerReference, kind, name string, uid types.UID) {
	t.Helper()
	if len(refs) != 1 {
		t.Fatalf("ownerReferences %+v", refs)
	}
	r := refs[0]
	if r.APIVersion != "apps/v1" || r.Kind != kind || r.Name != name || r.UID != uid || !ptr.Deref(r.Controller, false) || !ptr.Deref(r.BlockOwnerDeletion, false) {
		t.Errorf("ownerReference %+v, want the controller %s %s", r, kind, name)
	}
}

// kubectl runs kubectl in the env's namespace; the test is skipped where kubectl is not
// installed.
func (e *env) kubectl(args ...string) (string, error) {
	e.t.Helper()
	path, err := exec.LookPath("kubectl")
	if err != nil {
		e.t.Skip("kubectl is not installed")
	}
	cmd := exec.Command(path, append([]string{"-n", e.ns}, args...)...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+e.kubeconfig)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	return out.String(), err
}

// mustKubectl runs kubectl and fails the test unless it succeeds with output containing want.
func (e *env) mustKubectl(want string, args ...string) string {
	e.t.Helper()
	out, err := e.kubectl(args...)
	if err != nil || !strings.Contains(out, want) {
		e.t.Fatalf("kubectl %s: %v\n%s\nwant %q", strings.Join(args, " "), err, out, want)
	}
	return out
}

func condition(d *appsv1.Deployment, t appsv1.DeploymentConditionType) string {
	for _, c := range d.Status.Conditions {
		if c.Type == t {
			return fmt.Sprintf("%s/%s/%s", c.Status, c.Reason, c.Message)
		}
	}
	return ""
}
