package chaintest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/restmapper"

	"github.com/apichain/apichain/internal/etcd"
)

// Reset returns a running Environment to the state it had when Start returned: every object
// created since, of every resource the chain serves (namespaced, cluster-scoped, custom), is
// deleted, and Reset returns once all are gone. What Start left stays: the system namespaces,
// the bootstrap RBAC policy, the APIServices of the built-in groups, and the CRDs and webhook
// configurations of the Environment's options. Config, clients and informers made from it keep
// working; an informer sees a DELETED event for each object removed. A suite can so share one
// Environment across its tests, calling Reset between them (see the Environment example).
// Reset must not run concurrently with itself or Stop.
//
// Objects that existed at Start are kept by name; what a test changed in them is not undone,
// and one it deleted is not brought back (unless the chain recreates it, as it does the
// system namespaces).
//
// Reset finds what is new in etcd, and deletes it through the API. Finding: at Start, the
// Environment records the keys etcd holds; Reset reads the keys again (one request, keys
// only, and nothing more when nothing is new), then reads the new keys' objects for their
// kind, name and finalizers. Deleting: one DELETE per object, as a cluster's clients would
// send it, so that watchers (the test's informers, the chain's own controllers and watch
// caches) see each deletion, admission and the registries' delete logic run, and nothing is
// left that the API would not show or that a cache still holds. Deleting in etcd directly
// would be quicker, but skips all of that. Where kube-apiserver's conventions would make a
// deletion wait on someone else, Reset does that part itself:
//   - finalizers: an object created since Start that has finalizers (the test's controllers',
//     the chain's) has them removed after its DELETE, since the controllers that would act on
//     them belong to the test that is over. (Once an object is being deleted the API refuses
//     new finalizers, so none slips in between.) The one finalizer left to its owner is
//     apiextensions' on a CRD: its controller removes it once the CRD's custom resources are
//     gone, and Reset waits for that, so no custom resource outlives its CRD in etcd;
//   - namespaces: a new namespace is finalized (its spec.finalizers cleared, which the
//     namespace controller does once a namespace is empty) and marked Terminating first, so
//     that NamespaceLifecycle admission refuses anything new in it (the ServiceAccount and
//     root CA controllers' objects among them) and no namespace controller sweeps it too;
//     then its contents go, then the namespace. It goes even without controllers;
//   - the garbage collector: deletions use background propagation, which adds no finalizer;
//     dependents are new objects too and deleted by Reset, so nothing waits on the collector;
//   - objects the chain manages for others (the APIService of a CRD's group) are left to the
//     chain, which removes them with what they stand for; Reset waits for that.
//
// Reset reads etcd again until nothing new is left, so it also catches what a controller still
// running creates in between. It fails if that takes longer than ControlPlaneStopTimeout.
func (e *Environment) Reset() error {
	if e.chain == nil || e.resetter == nil {
		return errors.New("chaintest: Reset before Start")
	}
	ctx, cancel := context.WithTimeout(context.Background(), e.ControlPlaneStopTimeout)
	defer cancel()
	for {
		left, err := e.resetter.pass(ctx)
		if err != nil {
			return fmt.Errorf("chaintest: Reset: %w", err)
		}
		if len(left) == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("chaintest: Reset: still there after %v: %s", e.ControlPlaneStopTimeout, strings.Join(left, ", "))
		case <-time.After(2 * time.Millisecond):
		}
	}
}

// registryPrefix is where the chain's servers keep their objects in etcd (kube-apiserver's
// default, servers/chain's etcdOptions).
const registryPrefix = "/registry/"

// The label kube-aggregator's auto-registration sets on the APIServices it manages (one per
// CRD group, among others).
const autoManagedLabel = "kube-aggregator.kubernetes.io/automanaged"

// The finalizer apiextensions puts on a CRD: its controller deletes the custom resources, then
// removes it.
const crdCleanupFinalizer = "customresourcecleanup.apiextensions.k8s.io"

// How many requests Reset sends at once: enough to keep both ends busy on a small machine.
const resetWorkers = 8

// resetter holds what Reset needs between calls: the keys at Start, an etcd client, and the
// API's clients and kind-to-resource mapping.
type resetter struct {
	etcd    *clientv3.Client
	initial map[string]bool
	mapper  *restmapper.DeferredDiscoveryRESTMapper
	meta    metadata.Interface
	core    kubernetes.Interface
}

// newResetter connects to the Environment's etcd and records the keys it holds now.
func (e *Environment) newResetter(ctx context.Context) (*resetter, error) {
	endpoints, err := etcd.ReadEndpoints(e.DataDir)
	if err != nil {
		return nil, err
	}
	tlsConfig, err := etcd.ReadClientTLS(e.DataDir)
	if err != nil {
		return nil, err
	}
	// Its retries are the client's business; a test's output is not the place for them.
	client, err := clientv3.New(clientv3.Config{Endpoints: endpoints, DialTimeout: 5 * time.Second, TLS: tlsConfig, Logger: zap.NewNop()})
	if err != nil {
		return nil, fmt.Errorf("connecting to etcd: %w", err)
	}
	r := &resetter{etcd: client}
	if r.initial, err = r.keys(ctx); err != nil {
		client.Close()
		return nil, err
	}
	cs, err := kubernetes.NewForConfig(e.Config)
	if err == nil {
		r.core = cs
		r.meta, err = metadata.NewForConfig(e.Config)
	}
	if err != nil {
		client.Close()
		return nil, err
	}
	r.mapper = restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(cs.Discovery()))
	return r, nil
}

func (r *resetter) close() error { return r.etcd.Close() }

// keys reads the keys under registryPrefix.
func (r *resetter) keys(ctx context.Context) (map[string]bool, error) {
	resp, err := r.etcd.Get(ctx, registryPrefix, clientv3.WithPrefix(), clientv3.WithKeysOnly())
	if err != nil {
		return nil, fmt.Errorf("reading etcd's keys: %w", err)
	}
	keys := make(map[string]bool, len(resp.Kvs))
	for _, kv := range resp.Kvs {
		keys[string(kv.Key)] = true
	}
	return keys, nil
}

// pass deletes what is new since Start and returns the keys of what it found new.
func (r *resetter) pass(ctx context.Context) ([]string, error) {
	keys, err := r.keys(ctx)
	if err != nil {
		return nil, err
	}
	var fresh []string
	for k := range keys {
		if !r.initial[k] {
			fresh = append(fresh, k)
		}
	}
	if len(fresh) == 0 {
		return nil, nil
	}
	objs, err := r.read(ctx, fresh)
	if err != nil {
		return fresh, err
	}
	var namespaces, others []*storedObject
	for _, o := range objs {
		switch {
		case o.mapping.Resource.GroupResource() == schema.GroupResource{Resource: "namespaces"}:
			namespaces = append(namespaces, o)
		case o.meta.Labels[autoManagedLabel] != "":
			// Left to the chain, waited for.
		default:
			others = append(others, o)
		}
	}
	// Namespaces are marked Terminating first, so that nothing new is created in them while
	// their contents go, then deleted (see Reset).
	if err := forEach(ctx, namespaces, r.terminateNamespace); err != nil {
		return fresh, err
	}
	if err := forEach(ctx, others, r.remove); err != nil {
		return fresh, err
	}
	return fresh, forEach(ctx, namespaces, r.remove)
}

// read reads the objects under keys and finds the resource of each. A key whose object is
// gone in between is skipped.
func (r *resetter) read(ctx context.Context, keys []string) ([]*storedObject, error) {
	var (
		mu   sync.Mutex
		objs []*storedObject
	)
	err := forEach(ctx, keys, func(ctx context.Context, key string) error {
		resp, err := r.etcd.Get(ctx, key)
		if err != nil {
			return fmt.Errorf("reading %s: %w", key, err)
		}
		if len(resp.Kvs) == 0 {
			return nil
		}
		o, err := decodeStored(key, resp.Kvs[0].Value)
		if err != nil {
			return err
		}
		if o.mapping, err = r.mapping(o.kind); err != nil {
			return fmt.Errorf("%s (%s): %w", key, o.kind, err)
		}
		mu.Lock()
		objs = append(objs, o)
		mu.Unlock()
		return nil
	})
	return objs, err
}

// mapping finds the resource that serves kind, asking discovery again when a kind is new (a
// CRD installed since the last call).
func (r *resetter) mapping(kind schema.GroupVersionKind) (*meta.RESTMapping, error) {
	m, err := r.mapper.RESTMapping(kind.GroupKind())
	if meta.IsNoMatchError(err) {
		r.mapper.Reset()
		m, err = r.mapper.RESTMapping(kind.GroupKind())
	}
	return m, err
}

// remove deletes o, then removes its finalizers if it has any.
func (r *resetter) remove(ctx context.Context, o *storedObject) error {
	client := r.client(o)
	if o.meta.DeletionTimestamp == nil {
		background := metav1.DeletePropagationBackground
		err := client.Delete(ctx, o.meta.Name, metav1.DeleteOptions{PropagationPolicy: &background})
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("deleting %s: %w", o, err)
		}
	}
	keep := slices.DeleteFunc(slices.Clone(o.meta.Finalizers), func(f string) bool {
		return f != crdCleanupFinalizer || o.mapping.Resource.Group != "apiextensions.k8s.io"
	})
	if len(o.meta.Finalizers) == len(keep) {
		return nil
	}
	// A merge patch replaces the whole list.
	patch := `{"metadata":{"finalizers":null}}`
	if len(keep) > 0 {
		patch = `{"metadata":{"finalizers":["` + strings.Join(keep, `","`) + `"]}}`
	}
	_, err := client.Patch(ctx, o.meta.Name, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("removing the finalizers of %s: %w", o, err)
	}
	return nil
}

// terminateNamespace clears a namespace's spec.finalizers (through the finalize subresource,
// as the namespace controller does once a namespace is empty) and marks it Terminating. As in
// kube-apiserver, a namespace's first DELETE only marks it, and the next one deletes it if its
// spec.finalizers are empty; cleared first, no namespace controller sweeps it as well.
func (r *resetter) terminateNamespace(ctx context.Context, o *storedObject) error {
	namespaces := r.core.CoreV1().Namespaces()
	ns, err := namespaces.Get(ctx, o.meta.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading %s: %w", o, err)
	}
	if len(ns.Spec.Finalizers) > 0 {
		ns.Spec.Finalizers = nil
		if ns, err = namespaces.Finalize(ctx, ns, metav1.UpdateOptions{}); err != nil {
			if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
				return nil // gone, or changed in between: the next pass reads it again
			}
			return fmt.Errorf("finalizing %s: %w", o, err)
		}
	}
	if ns.DeletionTimestamp == nil {
		if err := namespaces.Delete(ctx, o.meta.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("deleting %s: %w", o, err)
		}
	}
	// What remove (the second DELETE, then metadata finalizers) will find.
	o.meta.DeletionTimestamp, o.meta.Finalizers = nil, ns.Finalizers
	return nil
}

func (r *resetter) client(o *storedObject) metadata.ResourceInterface {
	if o.mapping.Scope.Name() == meta.RESTScopeNameNamespace {
		return r.meta.Resource(o.mapping.Resource).Namespace(o.meta.Namespace)
	}
	return r.meta.Resource(o.mapping.Resource)
}

// forEach runs fn on every item, resetWorkers at a time, and returns the errors joined.
func forEach[T any](ctx context.Context, items []T, fn func(context.Context, T) error) error {
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	sem := make(chan struct{}, resetWorkers)
	for _, item := range items {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			if err := fn(ctx, item); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}
