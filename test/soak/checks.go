package soak

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
)

// WatcherResult is what the checks found of one watcher.
type WatcherResult struct {
	Name, Target string
	Stats        WatcherStats
	// Checks counts the comparisons of its view with a list; Failures are those that found a
	// difference that lasted, with when and after what.
	Checks int
	// MostTries is the most lists one check took before the view matched (1: at once).
	MostTries int
	Failures  []string
}

// newWatchers makes the soak's watchers, each on a client (and connection) of its own: raw
// watches with and without bookmarks, with label and field selectors, two that start with the
// watch-list protocol, and client-go informers (protobuf, as controllers run them) of the
// Deployments, their ReplicaSets and Pods, ConfigMaps and the custom resources.
func (s *soak) newWatchers() []Watcher {
	var ws []Watcher
	raw := func(name string, t Target, bookmarks, streaming bool) {
		cut := NewCutter()
		dyn := dynamic.NewForConfigOrDie(s.watchConfig(cut, false))
		ws = append(ws, NewRawWatcher(name, t.Client(dyn), t, bookmarks, streaming, cut))
	}
	raw("raw configmaps labelled, bookmarks", Target{GVR: ConfigMaps, LabelSelector: soakLabel + "=yes"}, true, false)
	raw("raw configmaps of soak-a", Target{GVR: ConfigMaps, Namespace: Namespaces[0]}, false, false)
	raw("raw secrets by namespace field, bookmarks", Target{GVR: Secrets, FieldSelector: "metadata.namespace=" + Namespaces[1]}, true, false)
	raw("raw widgets of even writes", Target{GVR: Widgets, LabelSelector: "soak-parity=even"}, false, false)
	raw("watch-list configmaps of soak-b", Target{GVR: ConfigMaps, Namespace: Namespaces[1]}, true, true)
	raw("watch-list widgets of soak-a", Target{GVR: Widgets, Namespace: Namespaces[0]}, true, true)
	if s.proc != nil { // the anchor has no kubelets: its pods would stay Pending
		raw("raw running pods, bookmarks", Target{GVR: Pods, FieldSelector: "status.phase=Running"}, true, false)
	}

	typed := func(name string, t Target, informer func(informers.SharedInformerFactory) cache.SharedIndexInformer) {
		cut := NewCutter()
		cs := kubernetes.NewForConfigOrDie(s.watchConfig(cut, true))
		f := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace(t.Namespace),
			informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector, o.FieldSelector = t.LabelSelector, t.FieldSelector }))
		ws = append(ws, NewInformerWatcher(name, informer(f), t, cut))
	}
	typed("informer deployments", Target{GVR: Deployments}, func(f informers.SharedInformerFactory) cache.SharedIndexInformer {
		return f.Apps().V1().Deployments().Informer()
	})
	typed("informer configmaps of odd writes", Target{GVR: ConfigMaps, LabelSelector: "soak-parity=odd"}, func(f informers.SharedInformerFactory) cache.SharedIndexInformer {
		return f.Core().V1().ConfigMaps().Informer()
	})
	if s.proc != nil {
		typed("informer replicasets", Target{GVR: ReplicaSets}, func(f informers.SharedInformerFactory) cache.SharedIndexInformer {
			return f.Apps().V1().ReplicaSets().Informer()
		})
		typed("informer pods of soak-b", Target{GVR: Pods, Namespace: Namespaces[1]}, func(f informers.SharedInformerFactory) cache.SharedIndexInformer {
			return f.Core().V1().Pods().Informer()
		})
	}
	cut := NewCutter()
	dyn := dynamic.NewForConfigOrDie(s.watchConfig(cut, false))
	t := Target{GVR: Widgets}
	informer := dynamicinformer.NewFilteredDynamicSharedInformerFactory(dyn, 0, "", nil).ForResource(Widgets).Informer()
	ws = append(ws, NewInformerWatcher("informer widgets", informer, t, cut))
	return ws
}

// watchConfig is a client config for one watcher: its own connections, through cut, recorded.
func (s *soak) watchConfig(cut *Cutter, protobuf bool) *rest.Config {
	cfg := rest.CopyConfig(s.rest)
	if protobuf {
		cfg.ContentType = runtime.ContentTypeProtobuf
		cfg.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
	}
	cut.Apply(cfg)
	s.rec.Wrap(cfg, cut)
	return cfg
}

// checkWatchers holds the view of each of which against a list (CheckView), after why.
func (s *soak) checkWatchers(ctx context.Context, why string, which []Watcher) {
	at := s.rec.Since()
	failed := 0
	for _, w := range which {
		diff, tries := CheckView(ctx, s.dyn, w, 90*time.Second)
		if ctx.Err() != nil {
			return
		}
		s.mu.Lock()
		c := s.result.checks[w.Name()]
		if c == nil {
			c = &WatcherResult{}
			s.result.checks[w.Name()] = c
		}
		c.Checks++
		c.MostTries = max(c.MostTries, tries)
		if diff != "" {
			failed++
			c.Failures = append(c.Failures, fmt.Sprintf("%s after %s: %s", fmtDur(at), why, diff))
		}
		s.mu.Unlock()
	}
	if failed > 0 {
		s.event(fmt.Sprintf("%d of %d watchers' views differ from a list after %s", failed, len(which), why))
	}
}

// checkModel pauses the workload, lists every object it writes, and holds them against the
// model: every acknowledged write present, nothing else changed.
func (s *soak) checkModel(ctx context.Context, why string) {
	s.gate.Lock()
	defer s.gate.Unlock()
	stored := map[Key]Observed{}
	var resources []string
	for _, r := range Written {
		resources = append(resources, r.GVR.Resource)
		client := s.dyn.Resource(r.GVR)
		opts := metav1.ListOptions{LabelSelector: soakLabel + "=yes", Limit: 500}
		for {
			list, err := client.List(ctx, opts)
			if err != nil {
				s.result.Fatal = append(s.result.Fatal, fmt.Sprintf("listing %s to check the writes after %s: %v", r.GVR.Resource, why, err))
				return
			}
			for i := range list.Items {
				u := &list.Items[i]
				stored[Key{Resource: r.GVR.Resource, Namespace: u.GetNamespace(), Name: u.GetName()}] = ObservedOf(u)
			}
			if list.GetContinue() == "" {
				break
			}
			opts.Continue = list.GetContinue()
		}
	}
	problems, n := s.model.Verify(resources, stored)
	s.mu.Lock()
	s.result.ModelChecks++
	s.result.ModelCompared += n
	for _, p := range problems {
		s.result.ModelProblems = append(s.result.ModelProblems, fmt.Sprintf("%s after %s: %s", fmtDur(s.rec.Since()), why, p))
	}
	s.mu.Unlock()
	s.event(fmt.Sprintf("writes checked after %s: %d objects against what was acknowledged, %d problems", why, n, len(problems)))
}
