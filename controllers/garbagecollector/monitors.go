package garbagecollector

import (
	"context"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/apichain/apichain/internal/sharedinformers"
)

// ignored are the resources the collector does not watch, as kube-controller-manager: events
// are many, short-lived, and never own anything.
var ignored = map[schema.GroupResource]bool{
	{Group: "", Resource: "events"}:              true,
	{Group: "events.k8s.io", Resource: "events"}: true,
}

// Index names of every monitor's informer.
const (
	byUID   = "garbagecollector.uid"
	byOwner = "garbagecollector.owner"
)

// monitor watches one resource. A built-in resource is watched through the controllers'
// shared informer factory, as kube-controller-manager's collector watches it: the pods the
// collector looks at are the very pods the scheduler, the kubelets and the workload controllers
// keep, not a second copy. Any other resource (custom resources, those of aggregated servers)
// gets a metadata-only informer of the collector's own, which it stops when the resource goes
// away (a CRD deleted): a shared factory cannot stop one of its informers.
type monitor struct {
	resource schema.GroupVersionResource
	informer cache.SharedIndexInformer
	// stop ends the monitor: it stops an informer of the collector's own, and takes the
	// collector's handler off a shared one.
	stop func()
}

// asMeta is the metadata of an object of a monitor's cache: a metadata informer's
// PartialObjectMetadata, or a shallow copy of a typed object's ObjectMeta (read, never written).
func asMeta(obj any) (*metav1.PartialObjectMetadata, bool) {
	switch o := obj.(type) {
	case *metav1.PartialObjectMetadata:
		return o, true
	case metav1.ObjectMetaAccessor:
		if m, ok := o.GetObjectMeta().(*metav1.ObjectMeta); ok {
			return &metav1.PartialObjectMetadata{ObjectMeta: *m}, true
		}
	}
	return nil, false
}

// resync makes the monitors match what discovery lists now. When it adds some, it waits (a
// while) for them to fill their caches and looks at every object with owners again: an owner
// nobody watched may have gone unnoticed.
func (gc *GarbageCollector) resync(ctx context.Context, period time.Duration) {
	lists, err := gc.discovery.ServerPreferredResources()
	complete := err == nil
	if err != nil && !discovery.IsGroupDiscoveryFailedError(err) {
		klog.FromContext(ctx).Error(err, "garbage collector: discovery failed")
		return
	}
	wanted := map[schema.GroupResource]schema.GroupVersionResource{}
	for _, list := range lists {
		gv, err := schema.ParseGroupVersion(list.GroupVersion)
		if err != nil {
			continue
		}
		for _, r := range list.APIResources {
			gvr := gv.WithResource(r.Name)
			if !strings.Contains(r.Name, "/") && !ignored[gvr.GroupResource()] && hasVerbs(r, "list", "watch", "delete") {
				wanted[gvr.GroupResource()] = gvr
			}
		}
	}

	var added []cache.InformerSynced
	gc.mu.Lock()
	for gr, gvr := range wanted {
		if m, ok := gc.monitors[gr]; ok {
			if m.resource == gvr {
				continue
			}
			m.stop() // the preferred version changed
			delete(gc.monitors, gr)
		}
		m, err := gc.startMonitor(ctx, gvr)
		if err != nil {
			klog.FromContext(ctx).Error(err, "garbage collector: not watching", "resource", gvr)
			continue
		}
		gc.monitors[gr] = m
		added = append(added, m.informer.HasSynced)
	}
	// A group that failed discovery may still be there: only complete discovery removes.
	for gr, m := range gc.monitors {
		if _, ok := wanted[gr]; !ok && complete {
			m.stop()
			delete(gc.monitors, gr)
		}
	}
	gc.mu.Unlock()
	if len(added) == 0 {
		return
	}

	klog.FromContext(ctx).V(2).Info("garbage collector watches new resources", "count", len(added))
	gc.mapper.Reset() // new kinds may be owners now
	waitCtx, cancel := context.WithTimeout(ctx, period)
	defer cancel()
	cache.WaitForCacheSync(waitCtx.Done(), added...)
	for _, m := range gc.monitorList() {
		for _, obj := range m.informer.GetStore().List() {
			if o, ok := asMeta(obj); ok && len(o.OwnerReferences) > 0 {
				gc.queue.Add(o.UID)
			}
		}
	}
}

func hasVerbs(r metav1.APIResource, verbs ...string) bool {
	for _, v := range verbs {
		if !slices.Contains(r.Verbs, v) {
			return false
		}
	}
	return true
}

// startMonitor starts watching resource with an informer indexed by UID and by owner UID: the
// shared one when the shared factory has the resource's type, else one of its own.
func (gc *GarbageCollector) startMonitor(ctx context.Context, resource schema.GroupVersionResource) (*monitor, error) {
	indexers := cache.Indexers{
		byUID: func(obj any) ([]string, error) {
			o, err := meta.Accessor(obj)
			if err != nil {
				return nil, err
			}
			return []string{string(o.GetUID())}, nil
		},
		byOwner: func(obj any) ([]string, error) {
			o, err := meta.Accessor(obj)
			if err != nil {
				return nil, err
			}
			var uids []string
			for _, ref := range o.GetOwnerReferences() {
				uids = append(uids, string(ref.UID))
			}
			return uids, nil
		},
	}
	if gc.shared != nil {
		if generic, err := gc.shared.ForResource(resource); err == nil {
			informer := generic.Informer()
			if _, ok := informer.GetIndexer().GetIndexers()[byUID]; !ok {
				if err := informer.AddIndexers(indexers); err != nil {
					return nil, err
				}
			}
			reg, err := informer.AddEventHandler(gc.handler())
			if err != nil {
				return nil, err
			}
			gc.shared.Start(ctx.Done()) // starts the informer if nobody else asked for it yet
			return &monitor{resource: resource, informer: informer, stop: func() { _ = informer.RemoveEventHandler(reg) }}, nil
		}
	}
	informer := metadatainformer.NewFilteredMetadataInformer(gc.client, resource, metav1.NamespaceAll, 0, indexers, nil).Informer()
	if err := informer.SetTransform(sharedinformers.Strip); err != nil {
		return nil, err
	}
	if _, err := informer.AddEventHandler(gc.handler()); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	go informer.RunWithContext(ctx)
	return &monitor{resource: resource, informer: informer, stop: cancel}, nil
}

func (gc *GarbageCollector) monitorList() []*monitor {
	gc.mu.RLock()
	defer gc.mu.RUnlock()
	var ms []*monitor
	for _, m := range gc.monitors {
		ms = append(ms, m)
	}
	return ms
}

// monitorFor returns the monitor of resource, nil when it is not watched.
func (gc *GarbageCollector) monitorFor(resource schema.GroupResource) *monitor {
	gc.mu.RLock()
	defer gc.mu.RUnlock()
	return gc.monitors[resource]
}

// allSynced says whether every monitor has filled its cache: only then is "no dependent left"
// true of the cluster and not just of the caches.
func (gc *GarbageCollector) allSynced() bool {
	for _, m := range gc.monitorList() {
		if !m.informer.HasSynced() {
			return false
		}
	}
	return true
}

// find returns the cached object with uid and the monitor of its resource.
func (gc *GarbageCollector) find(uid types.UID) (*monitor, *metav1.PartialObjectMetadata) {
	for _, m := range gc.monitorList() {
		if objs, _ := m.informer.GetIndexer().ByIndex(byUID, string(uid)); len(objs) > 0 {
			if o, ok := asMeta(objs[0]); ok {
				return m, o
			}
		}
	}
	return nil, nil
}

// dependent is a cached object and the monitor of its resource.
type dependent struct {
	*metav1.PartialObjectMetadata
	monitor *monitor
}

// dependents returns the cached objects whose owner references resolve to owner: those that
// name its UID and, when owner is namespaced, are in its namespace.
func (gc *GarbageCollector) dependents(owner *metav1.PartialObjectMetadata) []dependent {
	var deps []dependent
	for _, m := range gc.monitorList() {
		objs, _ := m.informer.GetIndexer().ByIndex(byOwner, string(owner.UID))
		for _, obj := range objs {
			if o, ok := asMeta(obj); ok && (owner.Namespace == "" || o.Namespace == owner.Namespace) {
				deps = append(deps, dependent{o, m})
			}
		}
	}
	return deps
}
