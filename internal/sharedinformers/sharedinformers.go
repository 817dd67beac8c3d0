// Package sharedinformers is the one informer factory of the chain's controller side: the
// controllers, the scheduler and the simulated kubelets of a process read the cluster through
// the caches of one factory, so that a pod is decoded and kept once, not once per consumer.
// kube-controller-manager and kube-scheduler each keep one such factory; here they live in one
// process and share it.
//
// Where it sits: below controllers/ and kubelet/, which build on it; it imports client-go only.
package sharedinformers

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// New returns the factory. Its informers never resync (every consumer works from events and
// its own retries) and store objects without their managedFields (Strip).
func New(client kubernetes.Interface) informers.SharedInformerFactory {
	return informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithTransform(Strip))
}

// Strip drops what no consumer of the caches reads: metadata.managedFields, often a third of
// a small object, as kube-controller-manager's and kube-scheduler's factories drop it. An
// object read from the cache and written back (an Update) carries no managedFields, which
// the API server reads as "unchanged", never as "none".
func Strip(obj any) (any, error) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		// A tombstone holds the last state the cache had, already stripped.
		return d, nil
	}
	if m, err := meta.Accessor(obj); err == nil && m.GetManagedFields() != nil {
		m.SetManagedFields(nil)
	}
	return obj, nil
}

// PodsByNode is the name of the pod index by spec.nodeName that ByNode adds.
const PodsByNode = "spec.nodeName"

// ByNode adds, once, the index of pods by the node they are bound to (unbound pods are not in
// it), which the scheduler, the kubelets and the pod garbage collector all read.
func ByNode(pods cache.SharedIndexInformer) error {
	if _, ok := pods.GetIndexer().GetIndexers()[PodsByNode]; ok {
		return nil
	}
	return pods.AddIndexers(cache.Indexers{PodsByNode: IndexByNode})
}

// IndexByNode is the index function of PodsByNode.
func IndexByNode(obj any) ([]string, error) {
	if p, ok := obj.(*corev1.Pod); ok && p.Spec.NodeName != "" {
		return []string{p.Spec.NodeName}, nil
	}
	return nil, nil
}
