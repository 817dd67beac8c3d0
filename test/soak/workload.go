package soak

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
)

// The resources the workload writes.
var (
	ConfigMaps  = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	Secrets     = schema.GroupVersionResource{Version: "v1", Resource: "secrets"}
	Deployments = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	Widgets     = schema.GroupVersionResource{Group: "soak.apichain.io", Version: "v1", Resource: "widgets"}
	Pods        = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	ReplicaSets = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "replicasets"}
)

// Written are the resources the workload writes, and how many objects of each a worker keeps
// at most; the model covers them.
var Written = []struct {
	GVR   schema.GroupVersionResource
	Kind  string
	Slots int
	// Weight is the share of operations on this resource.
	Weight int
}{
	{ConfigMaps, "ConfigMap", 10, 35},
	{Secrets, "Secret", 6, 20},
	{Widgets, "Widget", 8, 25},
	{Deployments, "Deployment", 2, 10},
}

// Namespaces are where the workload writes.
var Namespaces = []string{"soak-a", "soak-b"}

// fieldManager is the workload's name in server-side apply.
const fieldManager = "soak"

// Workload writes and reads objects at a steady rate with a few workers, each on objects of
// its own, and records every acknowledged write in the model.
type Workload struct {
	Client  dynamic.Interface
	Model   *Model
	Workers int
	// Rate is how many operations per second all workers together start at most.
	Rate float64
	// Gate is held (read) by each operation; whoever holds it for writing has the workload
	// paused.
	Gate *sync.RWMutex

	seq atomic.Int64

	mu sync.Mutex
	// ops counts operations by resource and verb; refused the ones answered 4xx or 5xx, lost the
	// ones without an answer.
	ops, refused, lost map[string]int
	problems           []string
}

// Run runs the workers until ctx is done.
func (w *Workload) Run(ctx context.Context) {
	w.mu.Lock()
	w.ops, w.refused, w.lost = map[string]int{}, map[string]int{}, map[string]int{}
	w.mu.Unlock()
	tokens := make(chan struct{}, w.Workers)
	go func() {
		t := time.NewTicker(time.Duration(float64(time.Second) / w.Rate))
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				select { // a token nobody is free to take is dropped: the rate is a ceiling
				case tokens <- struct{}{}:
				default:
				}
			}
		}
	}()
	var wg sync.WaitGroup
	for id := range w.Workers {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), uint64(id)))
			for {
				select {
				case <-ctx.Done():
					return
				case <-tokens:
				}
				w.Gate.RLock()
				w.step(ctx, id, rng)
				w.Gate.RUnlock()
			}
		})
	}
	wg.Wait()
}

// step is one operation of worker id on one of its objects.
func (w *Workload) step(ctx context.Context, id int, rng *rand.Rand) {
	total := 0
	for _, r := range Written {
		total += r.Weight
	}
	pick := rng.IntN(total)
	i := 0
	for ; pick >= Written[i].Weight; i++ {
		pick -= Written[i].Weight
	}
	res := Written[i]
	slot := rng.IntN(res.Slots)
	key := Key{Resource: res.GVR.Resource, Namespace: Namespaces[(id+slot)%len(Namespaces)], Name: fmt.Sprintf("w%d-%d", id, slot)}
	client := w.Client.Resource(res.GVR).Namespace(key.Namespace)
	ctx, cancel := context.WithTimeout(ctx, 90*time.Second) // beyond the chain's own 60 s
	defer cancel()

	cur, pending := w.Model.Current(key)
	if pending {
		// The last write's answer was lost: what is stored says which state is right.
		w.read(ctx, client, key, "resolve")
		return
	}
	if rng.IntN(10) == 0 {
		w.read(ctx, client, key, "get")
		return
	}
	seq := w.seq.Add(1)
	obj := build(res.GVR, res.Kind, key, seq, rng)
	var verb string
	var err error
	var got *unstructured.Unstructured
	switch r := rng.IntN(10); {
	case !cur.Exists && r < 7:
		verb = "create"
		w.Model.Begin(key, State{Exists: true, Seq: seq})
		got, err = client.Create(ctx, obj, metav1.CreateOptions{})
	case !cur.Exists || r < 3:
		verb = "apply"
		w.Model.Begin(key, State{Exists: true, Seq: seq})
		got, err = client.Apply(ctx, key.Name, obj, metav1.ApplyOptions{FieldManager: fieldManager, Force: true})
	case r < 7 && res.GVR == Deployments:
		// Deployments are patched: the controller writes their status, so an update would race it.
		verb = "patch"
		w.Model.Begin(key, State{Exists: true, Seq: seq})
		got, err = client.Patch(ctx, key.Name, types.MergePatchType, deploymentPatch(seq, rng), metav1.PatchOptions{})
	case r < 7:
		verb = "update"
		obj.SetResourceVersion(cur.RV) // optimistic concurrency: nobody else writes it
		w.Model.Begin(key, State{Exists: true, Seq: seq})
		got, err = client.Update(ctx, obj, metav1.UpdateOptions{})
	default:
		verb = "delete"
		w.Model.Begin(key, State{Exists: false})
		propagation := metav1.DeletePropagationBackground
		err = client.Delete(ctx, key.Name, metav1.DeleteOptions{PropagationPolicy: &propagation})
	}
	w.count(w.ops, key.Resource, verb)
	switch {
	case err == nil && got != nil:
		w.Model.Ack(key, State{Exists: true, Seq: seq, RV: got.GetResourceVersion()})
	case err == nil:
		w.Model.Ack(key, State{})
	case definiteRefusal(err):
		w.Model.Refused(key)
		w.count(w.refused, key.Resource, verb)
		// Nobody else writes these objects: only throttling or an outage may refuse a write.
		if code := statusCode(err); code >= 400 && code < 500 && code != 429 && ctx.Err() == nil {
			w.problem("%s %s: %v", verb, key, err)
		}
	default:
		w.count(w.lost, key.Resource, verb)
	}
}

// read gets key and holds it against the model: a write of unknown outcome is resolved; any
// other difference is a read that missed an acknowledged write.
func (w *Workload) read(ctx context.Context, client dynamic.ResourceInterface, key Key, verb string) {
	w.count(w.ops, key.Resource, verb)
	got, err := client.Get(ctx, key.Name, metav1.GetOptions{})
	var o *Observed
	switch {
	case err == nil:
		obs := ObservedOf(got)
		o = &obs
	case apierrors.IsNotFound(err):
	default:
		w.count(w.lost, key.Resource, verb)
		return
	}
	if p := w.Model.Resolve(key, o); p != "" {
		w.problem("%s: %s", verb, p)
	}
}

// definiteRefusal says whether err means the write was certainly not applied: an error Status
// from the chain other than a timeout, or a connection that could not be opened.
func definiteRefusal(err error) bool {
	if errors.Is(err, syscall.ECONNREFUSED) {
		return true
	}
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		return false
	}
	switch code := status.Status().Code; {
	case code == 0, code == 504, apierrors.IsTimeout(err), apierrors.IsServerTimeout(err):
		return false // a timeout does not say whether the write happened
	default:
		return code >= 400
	}
}

func statusCode(err error) int32 {
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		return status.Status().Code
	}
	return 0
}

func (w *Workload) count(m map[string]int, resource, verb string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	m[resource+" "+verb]++
}

func (w *Workload) problem(format string, args ...any) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.problems = append(w.problems, fmt.Sprintf(format, args...))
}

// Figures are the workload's counts and the problems it saw.
type Figures struct {
	Ops, Refused, Lost map[string]int
	Problems           []string
}

// Figures returns what the workload did so far.
func (w *Workload) Figures() Figures {
	w.mu.Lock()
	defer w.mu.Unlock()
	cp := func(m map[string]int) map[string]int {
		out := map[string]int{}
		for k, v := range m {
			out[k] = v
		}
		return out
	}
	return Figures{Ops: cp(w.ops), Refused: cp(w.refused), Lost: cp(w.lost), Problems: append([]string(nil), w.problems...)}
}

// build is the object the workload writes as write seq of key: labels that move it in and
// out of the watchers' selectors, the write's number, and a body of a few hundred bytes to a
// few kilobytes.
func build(gvr schema.GroupVersionResource, kind string, key Key, seq int64, rng *rand.Rand) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{}}
	u.SetAPIVersion(gvr.GroupVersion().String())
	u.SetKind(kind)
	u.SetNamespace(key.Namespace)
	u.SetName(key.Name)
	u.SetLabels(map[string]string{soakLabel: "yes", "soak-parity": parity(seq)})
	u.SetAnnotations(map[string]string{seqAnnotation: strconv.FormatInt(seq, 10)})
	payload := strings.Repeat(strconv.FormatInt(seq, 36), 1+rng.IntN(400))
	switch gvr {
	case ConfigMaps:
		u.Object["data"] = map[string]any{"seq": strconv.FormatInt(seq, 10), "payload": payload}
	case Secrets:
		u.Object["type"] = "Opaque"
		u.Object["data"] = map[string]any{"payload": base64.StdEncoding.EncodeToString([]byte(payload))}
	case Widgets:
		u.Object["spec"] = map[string]any{"size": seq % 1000, "payload": payload}
	case Deployments:
		labels := map[string]any{"app": key.Name}
		u.Object["spec"] = map[string]any{
			"replicas": int64(1 + rng.IntN(2)),
			"selector": map[string]any{"matchLabels": labels},
			"template": map[string]any{
				"metadata": map[string]any{"labels": map[string]any{"app": key.Name, soakLabel: "pod"}},
				"spec": map[string]any{"containers": []any{map[string]any{
					"name": "app", "image": "registry.example/soak:" + strconv.Itoa(rng.IntN(3)),
				}}},
			},
		}
	}
	return u
}

// deploymentPatch changes a Deployment's write number and replicas, and now and then its pod
// template (a rollout: a new ReplicaSet, new pods).
func deploymentPatch(seq int64, rng *rand.Rand) []byte {
	template := ""
	if rng.IntN(3) == 0 {
		template = fmt.Sprintf(`,"template":{"metadata":{"annotations":{"soak-rollout":"%d"}}}`, seq)
	}
	return fmt.Appendf(nil, `{"metadata":{"labels":{"soak-parity":%q},"annotations":{%q:"%d"}},"spec":{"replicas":%d%s}}`,
		parity(seq), seqAnnotation, seq, 1+rng.IntN(2), template)
}

func parity(seq int64) string {
	if seq%2 == 0 {
		return "even"
	}
	return "odd"
}
