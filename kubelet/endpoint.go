package kubelet

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/apichain/apichain/internal/sharedinformers"
)

// endpoint is node n's kubelet API, behind the guard of auth.go: the paths kube-apiserver
// (pods/log, nodes/proxy) and the metrics server call. Streams end with ctx.
func (s *Simulator) endpoint(ctx context.Context, n *node) http.Handler {
	mux := http.NewServeMux() // "GET" patterns serve HEAD too; other methods get 405
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok"))
	})
	mux.HandleFunc("GET /metrics/resource", func(w http.ResponseWriter, r *http.Request) {
		s.serveMetrics(w, n)
	})
	mux.HandleFunc("GET /stats/summary", func(w http.ResponseWriter, r *http.Request) {
		u, err := s.usageOf(n, time.Now())
		if err != nil {
			http.Error(w, fmt.Sprintf("Internal Error: failed to get node stats: %v", err), http.StatusInternalServerError)
			return
		}
		writeJSON(w, s.summary(n, u))
	})
	mux.HandleFunc("GET /pods", func(w http.ResponseWriter, r *http.Request) {
		list := corev1.PodList{TypeMeta: metav1.TypeMeta{Kind: "PodList", APIVersion: "v1"}, Items: []corev1.Pod{}}
		objs, _ := s.pods.ByIndex(sharedinformers.PodsByNode, n.name)
		for _, obj := range objs {
			list.Items = append(list.Items, *obj.(*corev1.Pod))
		}
		writeJSON(w, list)
	})
	// The paths about a container of a pod: 404 for a pod not on this node or a container not in it.
	container := func(serve func(w http.ResponseWriter, r *http.Request, pod *corev1.Pod, container string)) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			pod, name := s.podOn(n, r.PathValue("namespace"), r.PathValue("pod")), r.PathValue("container")
			switch {
			case pod == nil:
				http.Error(w, fmt.Sprintf("pod %q does not exist", r.PathValue("pod")), http.StatusNotFound)
			case containerOf(pod, name) == nil:
				http.Error(w, fmt.Sprintf("container %q not found in pod %q", name, pod.Name), http.StatusNotFound)
			default:
				serve(w, r, pod, name)
			}
		}
	}
	mux.HandleFunc("GET /containerLogs/{namespace}/{pod}/{container}", container(func(w http.ResponseWriter, r *http.Request, pod *corev1.Pod, c string) {
		s.serveLogs(ctx, w, r, pod, c)
	}))
	for _, method := range []string{"GET", "POST"} { // SPDY upgrades come as POST from kube-apiserver
		mux.HandleFunc(method+" /portForward/{namespace}/{pod}", func(w http.ResponseWriter, r *http.Request) {
			if pod := s.podOn(n, r.PathValue("namespace"), r.PathValue("pod")); pod != nil {
				servePortForward(w, r, pod)
				return
			}
			http.Error(w, fmt.Sprintf("pod %q does not exist", r.PathValue("pod")), http.StatusNotFound)
		})
		for _, sub := range []string{"exec", "attach"} {
			mux.HandleFunc(method+" /"+sub+"/{namespace}/{pod}/{container}", container(func(w http.ResponseWriter, r *http.Request, pod *corev1.Pod, c string) {
				s.serveExec(w, r, pod, c, sub == "attach")
			}))
		}
	}
	return mux
}

// podOn is the pod of that namespace and name if it is bound to n, nil if not.
func (s *Simulator) podOn(n *node, namespace, name string) *corev1.Pod {
	obj, ok, err := s.pods.GetByKey(namespace + "/" + name)
	if err != nil || !ok {
		return nil
	}
	if pod := obj.(*corev1.Pod); pod.Spec.NodeName == n.name {
		return pod
	}
	return nil
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(v); err != nil {
		klog.V(2).InfoS("kubelet endpoint: writing the answer", "err", err)
	}
}

// The part of the kubelet's stats/v1alpha1 Summary that the simulator knows: CPU and memory of
// the node, its pods and their containers. Field names are the kubelet's.
type summary struct {
	Node nodeStats  `json:"node"`
	Pods []podStats `json:"pods"`
}

type nodeStats struct {
	NodeName  string      `json:"nodeName"`
	StartTime metav1.Time `json:"startTime"`
	CPU       cpuStats    `json:"cpu"`
	Memory    memoryStats `json:"memory"`
}

type podStats struct {
	PodRef     podReference     `json:"podRef"`
	StartTime  metav1.Time      `json:"startTime"`
	Containers []containerStats `json:"containers"`
	CPU        cpuStats         `json:"cpu"`
	Memory     memoryStats      `json:"memory"`
}

type podReference struct {
	Name      string    `json:"name"`
	Namespace string    `json:"namespace"`
	UID       types.UID `json:"uid"`
}

type containerStats struct {
	Name      string      `json:"name"`
	StartTime metav1.Time `json:"startTime"`
	CPU       cpuStats    `json:"cpu"`
	Memory    memoryStats `json:"memory"`
}

type cpuStats struct {
	Time                 metav1.Time `json:"time"`
	UsageNanoCores       uint64      `json:"usageNanoCores"`
	UsageCoreNanoSeconds uint64      `json:"usageCoreNanoSeconds"`
}

type memoryStats struct {
	Time            metav1.Time `json:"time"`
	UsageBytes      uint64      `json:"usageBytes"`
	WorkingSetBytes uint64      `json:"workingSetBytes"`
}

// summary is /stats/summary of node n, whose usage is u.
func (s *Simulator) summary(n *node, u nodeUsage) summary {
	at := metav1.NewTime(u.at)
	cpu := func(rate, total float64) cpuStats {
		return cpuStats{Time: at, UsageNanoCores: uint64(rate * 1e9), UsageCoreNanoSeconds: uint64(total * 1e9)}
	}
	mem := func(bytes float64) memoryStats {
		return memoryStats{Time: at, UsageBytes: uint64(bytes), WorkingSetBytes: uint64(bytes)}
	}
	out := summary{
		Node: nodeStats{NodeName: n.name, StartTime: metav1.NewTime(s.started), CPU: cpu(u.cpuRate, u.cpuTotal), Memory: mem(u.memory)},
		Pods: []podStats{},
	}
	for _, p := range u.pods {
		ps := podStats{
			PodRef: podReference{p.pod.Name, p.pod.Namespace, p.pod.UID},
			CPU:    cpu(p.cpuRate, p.cpuTotal), Memory: mem(p.memory),
		}
		if p.pod.Status.StartTime != nil {
			ps.StartTime = *p.pod.Status.StartTime
		}
		for _, c := range p.containers {
			ps.Containers = append(ps.Containers, containerStats{Name: c.name, StartTime: metav1.NewTime(c.started),
				CPU: cpu(c.cpuRate, c.cpuTotal), Memory: mem(c.memory)})
		}
		out.Pods = append(out.Pods, ps)
	}
	return out
}
