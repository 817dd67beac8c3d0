package kubelet_test

import (
	"context"
	"net/http"
	"net/netip"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/apichain/apichain/kubelet"
)

// memTotal is MemTotal from /proc/meminfo, in bytes.
func memTotal(t *testing.T) int64 {
	t.Helper()
	data, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "MemTotal:" && f[2] == "kB" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatal("no MemTotal in /proc/meminfo")
	return 0
}

func TestHostNodeHasTheMachinesCapacity(t *testing.T) {
	cl := sharedCluster(t)
	hostname, _ := os.Hostname()
	name := cl.sim.Registers()[0]
	node := cl.readyNodeWithRange(t, name)
	memTotal := memTotal(t)
	c := node.Status.Capacity
	if cpu := c[corev1.ResourceCPU]; cpu.Value() != int64(runtime.NumCPU()) {
		t.Errorf("cpu capacity %s, want %d", cpu.String(), runtime.NumCPU())
	}
	if mem := c[corev1.ResourceMemory]; mem.Value() != memTotal {
		t.Errorf("memory capacity %s, want MemTotal %d", mem.String(), memTotal)
	}
	if pods := c[corev1.ResourcePods]; pods.Value() != 110 {
		t.Errorf("pods capacity %s", pods.String())
	}
	alloc := node.Status.Allocatable[corev1.ResourceMemory]
	if want := memTotal - 100<<20; alloc.Value() != want {
		t.Errorf("allocatable memory %s, want %d", alloc.String(), want)
	}
	info := node.Status.NodeInfo
	if info.KubeletVersion != "v1.37.2" || info.ContainerRuntimeVersion != "apichain://simulated" ||
		info.Architecture != runtime.GOARCH || info.OperatingSystem != "linux" || info.KernelVersion == "" || info.OSImage == "" {
		t.Errorf("nodeInfo %+v", info)
	}
	if v, ok := node.Labels[kubelet.ControlPlaneLabel]; !ok || v != "" || node.Labels[corev1.LabelHostname] != name ||
		node.Labels[corev1.LabelOSStable] != "linux" || node.Labels[corev1.LabelArchStable] != runtime.GOARCH {
		t.Errorf("labels %v", node.Labels)
	}
	if _, ok := node.Annotations[kubelet.MetricsPathAnnotation]; ok {
		t.Errorf("the host node serves at the kubelet's own path, yet says %v", node.Annotations)
	}
	want := []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "127.0.0.1"}, {Type: corev1.NodeHostName, Address: hostname}}
	if len(node.Status.Addresses) != 2 || node.Status.Addresses[0] != want[0] || node.Status.Addresses[1] != want[1] {
		t.Errorf("addresses %v, want %v", node.Status.Addresses, want)
	}
	var conds []string
	for _, c := range node.Status.Conditions {
		conds = append(conds, string(c.Type)+"="+string(c.Status))
	}
	if got := strings.Join(conds, ","); got != "MemoryPressure=False,DiskPressure=False,PIDPressure=False,Ready=True" {
		t.Errorf("conditions %s", got)
	}
	if !isNodeRange(node.Spec.PodCIDR) {
		t.Errorf("podCIDR %q, want a /24 of the default cluster CIDR", node.Spec.PodCIDR)
	}
}

func TestSimulatedNodesAndHeartbeats(t *testing.T) {
	cl := sharedCluster(t)
	ctx := context.Background()
	ports, ranges := map[int32]string{}, map[string]string{}
	for _, name := range []string{"sim-node-1", "sim-node-2"} {
		node := cl.readyNodeWithRange(t, name)
		if _, ok := node.Annotations[kubelet.MetricsPathAnnotation]; ok || node.Labels[corev1.LabelHostname] != name {
			t.Errorf("%s: annotations %v, labels %v", name, node.Annotations, node.Labels)
		}
		if _, ok := node.Labels[kubelet.ControlPlaneLabel]; ok {
			t.Errorf("%s is labelled control-plane", name)
		}
		// From the node-ipam-controller: a range of its own.
		if !isNodeRange(node.Spec.PodCIDR) || ranges[node.Spec.PodCIDR] != "" {
			t.Errorf("%s: podCIDR %q (taken by %q)", name, node.Spec.PodCIDR, ranges[node.Spec.PodCIDR])
		}
		ranges[node.Spec.PodCIDR] = name
		// Every kubelet has its own endpoint, as on real nodes.
		port := node.Status.DaemonEndpoints.KubeletEndpoint.Port
		if port == 0 || ports[port] != "" {
			t.Errorf("%s: kubelet port %d (taken by %q)", name, port, ports[port])
		}
		ports[port] = name
	}

	// The lease is renewed and the status posted, every heartbeat.
	lease, err := cl.client.CoordinationV1().Leases(corev1.NamespaceNodeLease).Get(ctx, "sim-node-1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if *lease.Spec.HolderIdentity != "sim-node-1" || *lease.Spec.LeaseDurationSeconds != 40 ||
		len(lease.OwnerReferences) != 1 || lease.OwnerReferences[0].Kind != "Node" {
		t.Errorf("lease %+v", lease)
	}
	first := lease.Spec.RenewTime.Time
	eventually(t, "lease renewed", func(ctx context.Context) (bool, error) {
		l, err := cl.client.CoordinationV1().Leases(corev1.NamespaceNodeLease).Get(ctx, "sim-node-1", metav1.GetOptions{})
		return err == nil && l.Spec.RenewTime.After(first), nil
	})
	heartbeat := func(ctx context.Context) time.Time {
		n, err := cl.client.CoreV1().Nodes().Get(ctx, "sim-node-1", metav1.GetOptions{})
		if err != nil {
			return time.Time{}
		}
		return n.Status.Conditions[len(n.Status.Conditions)-1].LastHeartbeatTime.Time
	}
	before := heartbeat(ctx)
	eventually(t, "node status posted again", func(ctx context.Context) (bool, error) {
		return heartbeat(ctx).After(before), nil
	})
}

func TestKubeletEndpointServesEveryNode(t *testing.T) {
	cl := sharedCluster(t)
	for _, name := range cl.sim.Registers() {
		node := cl.readyNode(t, name)
		families, _ := cl.scrape(t, node)
		cpu0, ok1 := value(families, "node_cpu_usage_seconds_total")
		mem, ok2 := value(families, "node_memory_working_set_bytes")
		scrapeErr, ok3 := value(families, "resource_scrape_error")
		if !ok1 || !ok2 || !ok3 || cpu0 <= 0 || mem <= 0 || scrapeErr != 0 {
			t.Errorf("%s: node cpu %v, memory %v, scrape error %v", name, cpu0, mem, scrapeErr)
		}
		eventually(t, name+" CPU counter grows", func(context.Context) (bool, error) {
			families, _ := cl.scrape(t, node)
			cpu1, _ := value(families, "node_cpu_usage_seconds_total")
			return cpu1 > cpu0, nil
		})
	}

	// Read-only, and only the kubelet's own paths.
	node := cl.readyNode(t, "sim-node-1")
	resp, err := cl.https.Post(metricsURL(node), "text/plain", strings.NewReader(""))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: %s", resp.Status)
	}
	if code, _ := cl.get(t, kubeletURL(node, "/nodes/sim-node-1/metrics/resource")); code != http.StatusNotFound {
		t.Errorf("the path of the old shared endpoint: %d, want 404", code)
	}
}

// TestPodRunsAndIsDeleted is `kubectl run web --image=nginx`, then `kubectl delete pod web`.
func TestPodRunsAndIsDeleted(t *testing.T) {
	cl := sharedCluster(t)
	ctx := context.Background()
	ns := newNamespace(t, cl.client)
	pods := cl.client.CoreV1().Pods(ns)
	created, err := pods.Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Labels: map[string]string{"run": "web"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pod := waitRunning(t, cl, ns, "web")

	st := pod.Status
	if !inPodCIDR(t, cl, pod.Spec.NodeName, st.PodIP) || len(st.PodIPs) != 1 || st.HostIP != "127.0.0.1" || st.StartTime == nil ||
		st.QOSClass != corev1.PodQOSBestEffort || st.ObservedGeneration != pod.Generation {
		t.Errorf("status %+v", st)
	}
	var conds []string
	for _, c := range st.Conditions {
		conds = append(conds, string(c.Type)+"="+string(c.Status))
	}
	if got := strings.Join(conds, ","); got != "PodReadyToStartContainers=True,Initialized=True,Ready=True,ContainersReady=True,PodScheduled=True" {
		t.Errorf("conditions %s", got)
	}
	if len(st.ContainerStatuses) != 1 {
		t.Fatalf("container statuses %+v", st.ContainerStatuses)
	}
	cs := st.ContainerStatuses[0]
	if cs.Name != "web" || !cs.Ready || cs.Started == nil || !*cs.Started || cs.RestartCount != 0 || cs.State.Running == nil ||
		cs.Image != "docker.io/library/nginx:latest" || !strings.HasPrefix(cs.ImageID, "docker.io/library/nginx@sha256:") ||
		!strings.HasPrefix(cs.ContainerID, "containerd://") || len(cs.ContainerID) != len("containerd://")+64 {
		t.Errorf("container status %+v", cs)
	}

	// Scheduled, as kube-scheduler reports it.
	eventually(t, "Scheduled event", func(ctx context.Context) (bool, error) {
		events, err := cl.client.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=web,reason=Scheduled"})
		if err != nil || len(events.Items) == 0 {
			return false, nil
		}
		e := events.Items[0]
		want := "Successfully assigned " + ns + "/web to " + pod.Spec.NodeName
		if e.Message != want || e.ReportingController != "default-scheduler" || e.Source.Component != "default-scheduler" ||
			e.Type != corev1.EventTypeNormal || e.InvolvedObject.UID != created.UID {
			t.Errorf("event %+v, want message %q", e, want)
		}
		return true, nil
	})

	node := cl.readyNode(t, pod.Spec.NodeName)
	eventually(t, "pod in its node's metrics", func(context.Context) (bool, error) {
		families, _ := cl.scrape(t, node)
		cpu, ok1 := value(families, "container_cpu_usage_seconds_total", "web", ns, "web")
		mem, ok2 := value(families, "pod_memory_working_set_bytes", ns, "web")
		start, ok3 := value(families, "container_start_time_seconds", "web", ns, "web")
		return ok1 && ok2 && ok3 && cpu > 0 && mem > 0 && int64(start) == cs.State.Running.StartedAt.Unix(), nil
	})

	// kubectl delete: the graceful deletion ends at once, the pod leaves the metrics.
	if err := pods.Delete(ctx, "web", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "pod gone", func(ctx context.Context) (bool, error) {
		_, err := pods.Get(ctx, "web", metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	eventually(t, "pod out of the metrics", func(context.Context) (bool, error) {
		_, body := cl.scrape(t, node)
		return !strings.Contains(string(body), `namespace="`+ns+`"`), nil
	})
}

func waitRunning(t *testing.T, cl *cluster, ns, name string) *corev1.Pod {
	t.Helper()
	var pod *corev1.Pod
	eventually(t, "pod "+name+" Running", func(ctx context.Context) (bool, error) {
		p, err := cl.client.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		pod = p
		return p.Status.Phase == corev1.PodRunning, nil
	})
	return pod
}

// TestUsageAnnotations checks that apichain.io/cpu-usage and memory-usage set what the
// kubelet reports: the memory, and the CPU rate between two scrapes, split by container.
func TestUsageAnnotations(t *testing.T) {
	cl := sharedCluster(t)
	ctx := context.Background()
	ns := newNamespace(t, cl.client)
	_, err := cl.client.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "busy", Annotations: map[string]string{kubelet.CPUUsageAnnotation: "500m", kubelet.MemoryUsageAnnotation: "128Mi"}},
		Spec: corev1.PodSpec{
			NodeSelector: map[string]string{corev1.LabelHostname: "sim-node-2"},
			Containers:   []corev1.Container{{Name: "a", Image: "busybox"}, {Name: "b", Image: "busybox"}},
		}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pod := waitRunning(t, cl, ns, "busy")
	if pod.Spec.NodeName != "sim-node-2" {
		t.Fatalf("scheduled to %s despite its nodeSelector", pod.Spec.NodeName)
	}
	node := cl.readyNode(t, "sim-node-2")
	var cpu0 float64
	var t0 time.Time
	eventually(t, "pod in the metrics", func(context.Context) (bool, error) {
		families, _ := cl.scrape(t, node)
		t0 = time.Now()
		var ok bool
		cpu0, ok = value(families, "pod_cpu_usage_seconds_total", ns, "busy")
		return ok, nil
	})
	families, _ := cl.scrape(t, node)
	for _, c := range []string{"a", "b"} {
		mem, _ := value(families, "container_memory_working_set_bytes", c, ns, "busy")
		if want := float64(64 << 20); mem < 0.98*want || mem > 1.02*want {
			t.Errorf("container %s memory %v, want about half of 128Mi", c, mem)
		}
	}
	eventually(t, "pod CPU rate about 500m", func(context.Context) (bool, error) {
		families, _ := cl.scrape(t, node)
		elapsed := time.Since(t0).Seconds()
		if elapsed < 2 {
			return false, nil
		}
		cpu1, _ := value(families, "pod_cpu_usage_seconds_total", ns, "busy")
		// Scrape round trips blur the interval a little; the jitter is 5%.
		if rate := (cpu1 - cpu0) / elapsed; rate < 0.4 || rate > 0.6 {
			t.Errorf("rate %v over %.1fs, want about 0.5", rate, elapsed)
		}
		return true, nil
	})
}

func TestUnschedulablePodWaitsForANode(t *testing.T) {
	cl := sharedCluster(t)
	ctx := context.Background()
	ns := newNamespace(t, cl.client)
	_, err := cl.client.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "picky"},
		Spec: corev1.PodSpec{NodeSelector: map[string]string{"disktype": ns}, Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}},
		metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector."
	eventually(t, "PodScheduled=False Unschedulable", func(ctx context.Context) (bool, error) {
		p, err := cl.client.CoreV1().Pods(ns).Get(ctx, "picky", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
				if c.Message != want {
					t.Errorf("message %q, want %q", c.Message, want)
				}
				return p.Status.Phase == corev1.PodPending && p.Spec.NodeName == "", nil
			}
		}
		return false, nil
	})
	eventually(t, "FailedScheduling event", func(ctx context.Context) (bool, error) {
		events, err := cl.client.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=picky,reason=FailedScheduling"})
		return err == nil && len(events.Items) > 0 && events.Items[0].Message == want && events.Items[0].Type == corev1.EventTypeWarning, nil
	})

	// A node that fits turns up: the pod goes there.
	patch := []byte(`{"metadata":{"labels":{"disktype":"` + ns + `"}}}`) // unique: the cluster is shared
	if _, err := cl.client.CoreV1().Nodes().Patch(ctx, "sim-node-1", types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	pod := waitRunning(t, cl, ns, "picky")
	if pod.Spec.NodeName != "sim-node-1" {
		t.Errorf("scheduled to %s", pod.Spec.NodeName)
	}
}

// isNodeRange says whether cidr is a /24 of the chain's default cluster CIDR, 10.224.0.0/11.
func isNodeRange(cidr string) bool {
	p, err := netip.ParsePrefix(cidr)
	return err == nil && p.Bits() == 24 && p.Masked() == p && netip.MustParsePrefix("10.224.0.0/11").Contains(p.Addr())
}

// inPodCIDR says whether ip is an address of node's pod range.
func inPodCIDR(t *testing.T, cl *cluster, node, ip string) bool {
	t.Helper()
	n, err := cl.client.CoreV1().Nodes().Get(context.Background(), node, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p, err1 := netip.ParsePrefix(n.Spec.PodCIDR)
	a, err2 := netip.ParseAddr(ip)
	return err1 == nil && err2 == nil && p.Contains(a)
}
