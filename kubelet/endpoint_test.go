package kubelet_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/apichain/apichain/kubelet"
)

// kubeletURL is path on node's kubelet, where kube-apiserver reaches it: InternalIP and the
// port of the node's status.
func kubeletURL(node *corev1.Node, path string) string {
	return "https://" + net.JoinHostPort(node.Status.Addresses[0].Address,
		strconv.Itoa(int(node.Status.DaemonEndpoints.KubeletEndpoint.Port))) + path
}

// get is the status and body of GET url.
func (cl *cluster) get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := cl.https.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	return resp.StatusCode, string(body)
}

// runningPod creates a pod bound to node with the log annotation, and waits until it runs.
func (cl *cluster) runningPod(t *testing.T, name, node, log string) *corev1.Pod {
	t.Helper()
	ctx := context.Background()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: map[string]string{kubelet.LogAnnotation: log}},
		Spec:       corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "app", Image: "busybox:1.36"}}},
	}
	if _, err := cl.client.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cl.client.CoreV1().Pods("default").Delete(context.Background(), name, metav1.DeleteOptions{})
	})
	eventually(t, name+" running", func(ctx context.Context) (bool, error) {
		p, err := cl.client.CoreV1().Pods("default").Get(ctx, name, metav1.GetOptions{})
		if err == nil && p.Status.Phase == corev1.PodRunning {
			pod = p
			return true, nil
		}
		return false, nil
	})
	return pod
}

func TestEndpointPaths(t *testing.T) {
	cl := sharedCluster(t)
	node := cl.readyNode(t, "sim-node-1")
	pod := cl.runningPod(t, "endpoint-paths", "sim-node-1", "hello\nworld")

	if code, body := cl.get(t, kubeletURL(node, "/healthz")); code != http.StatusOK || body != "ok" {
		t.Errorf("/healthz: %d %q", code, body)
	}

	var pods corev1.PodList
	code, body := cl.get(t, kubeletURL(node, "/pods"))
	if err := json.Unmarshal([]byte(body), &pods); code != http.StatusOK || err != nil {
		t.Fatalf("/pods: %d %v %s", code, err, body)
	}
	found := false
	for _, p := range pods.Items {
		found = found || p.UID == pod.UID
		if p.Spec.NodeName != "sim-node-1" {
			t.Errorf("/pods of sim-node-1 lists %s of %s", p.Name, p.Spec.NodeName)
		}
	}
	if !found {
		t.Errorf("/pods does not list %s", pod.Name)
	}

	var summary struct {
		Node struct {
			NodeName string
			Memory   struct{ WorkingSetBytes uint64 }
		}
		Pods []struct {
			PodRef     struct{ Name string }
			Containers []struct {
				Name string
				CPU  struct{ UsageNanoCores uint64 }
			}
		}
	}
	code, body = cl.get(t, kubeletURL(node, "/stats/summary"))
	if err := json.Unmarshal([]byte(body), &summary); code != http.StatusOK || err != nil {
		t.Fatalf("/stats/summary: %d %v %s", code, err, body)
	}
	if summary.Node.NodeName != "sim-node-1" || summary.Node.Memory.WorkingSetBytes == 0 {
		t.Errorf("/stats/summary node: %+v", summary.Node)
	}
	found = false
	for _, p := range summary.Pods {
		if p.PodRef.Name == pod.Name {
			found = len(p.Containers) == 1 && p.Containers[0].Name == "app" && p.Containers[0].CPU.UsageNanoCores > 0
		}
	}
	if !found {
		t.Errorf("/stats/summary has no usage of %s: %s", pod.Name, body)
	}
}

func TestContainerLogs(t *testing.T) {
	cl := sharedCluster(t)
	node := cl.readyNode(t, "sim-node-1")
	pod := cl.runningPod(t, "logs", "sim-node-1", "hello\nworld")
	logs := kubeletURL(node, "/containerLogs/default/logs/app")

	code, body := cl.get(t, logs)
	want := "apichain: container app started (image busybox:1.36) on node sim-node-1\nhello\nworld\n"
	if code != http.StatusOK || body != want {
		t.Errorf("logs: %d %q, want %q", code, body, want)
	}
	if _, body := cl.get(t, logs+"?tailLines=1"); body != "world\n" {
		t.Errorf("tailLines=1: %q", body)
	}
	if _, body := cl.get(t, logs+"?limitBytes=3"); body != "api" {
		t.Errorf("limitBytes=3: %q", body)
	}
	_, body = cl.get(t, logs+"?timestamps=true&tailLines=1")
	stamp, text, _ := strings.Cut(body, " ")
	if at, err := time.Parse(time.RFC3339Nano, stamp); err != nil || text != "world\n" ||
		!at.Equal(pod.Status.ContainerStatuses[0].State.Running.StartedAt.Time) {
		t.Errorf("timestamps=true: %q (%v), want the start time %v", body, err, pod.Status.ContainerStatuses[0].State.Running.StartedAt)
	}
	for _, tc := range []struct {
		path string
		code int
		body string
	}{
		{"/containerLogs/default/logs/nope", http.StatusNotFound, `container "nope" not found in pod "logs"`},
		{"/containerLogs/default/missing/app", http.StatusNotFound, `pod "missing" does not exist`},
		{"/containerLogs/default/logs/app?previous=true", http.StatusBadRequest, `previous terminated container "app" in pod "logs" not found`},
		{"/containerLogs/default/logs/app?tailLines=-1", http.StatusBadRequest, "tailLines"},
	} {
		if code, body := cl.get(t, kubeletURL(node, tc.path)); code != tc.code || !strings.Contains(body, tc.body) {
			t.Errorf("%s: %d %q, want %d %q", tc.path, code, body, tc.code, tc.body)
		}
	}

	// Following: lines as the annotation changes, and the end when the pod is deleted.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, logs+"?follow=true&tailLines=0", nil)
	if err != nil {
		t.Fatal(err)
	}
	follower := &http.Client{Transport: cl.https.Transport} // no timeout: the stream lasts
	resp, err := follower.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	lines := bufio.NewReader(resp.Body)
	pod.Annotations[kubelet.LogAnnotation] = "more"
	if _, err := cl.client.CoreV1().Pods("default").Update(ctx, pod, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if line, err := lines.ReadString('\n'); line != "more\n" {
		t.Fatalf("followed %q (%v), want the annotation's new line", line, err)
	}
	if err := cl.client.CoreV1().Pods("default").Delete(ctx, pod.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	rest, err := io.ReadAll(lines) // ends: the pod is gone
	if err != nil || !regexp.MustCompile(`^apichain: container app stopped: its pod was deleted\n$`).Match(rest) {
		t.Errorf("after deletion: %q %v", rest, err)
	}
}
