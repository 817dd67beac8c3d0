package aggregator

import (
	"context"

	crdinformers "k8s.io/apiextensions-apiserver/pkg/client/informers/externalversions/apiextensions/v1"
	crdlisters "k8s.io/apiextensions-apiserver/pkg/client/listers/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/tools/cache"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
)

// autoRegistration is what crdRegistration needs of kube-aggregator's autoregister controller.
type autoRegistration interface {
	AddAPIServiceToSync(in *apiregistrationv1.APIService)
	RemoveAPIServiceToSync(name string)
}

// crdRegistration keeps a Local APIService for every group version some CRD serves, so that CRD
// groups show in /apis and `kubectl get apiservices` as kube-apiserver shows them (kubernetes
// pkg/controlplane/controller/crdregistration does this there). It does not track CRDs one by
// one: on any change it compares the group versions served now with those it registered.
type crdRegistration struct {
	crds      crdlisters.CustomResourceDefinitionLister
	hasSynced cache.InformerSynced
	register  autoRegistration
	// changed holds at most one pending "the CRDs changed": changes coalesce.
	changed chan struct{}
	// synced is closed once the CRDs present at start are registered.
	synced chan struct{}
}

func newCRDRegistration(informer crdinformers.CustomResourceDefinitionInformer, register autoRegistration) (*crdRegistration, error) {
	c := &crdRegistration{
		crds: informer.Lister(), hasSynced: informer.Informer().HasSynced, register: register,
		changed: make(chan struct{}, 1), synced: make(chan struct{}),
	}
	poke := func(any) {
		select {
		case c.changed <- struct{}{}:
		default: // one is pending already
		}
	}
	_, err := informer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: poke, UpdateFunc: func(_, obj any) { poke(obj) }, DeleteFunc: poke,
	})
	return c, err
}

// Run registers the CRDs present once the informer has synced, then follows changes until ctx
// is done.
func (c *crdRegistration) Run(ctx context.Context) {
	if !cache.WaitForNamedCacheSync("crd-autoregister", ctx.Done(), c.hasSynced) {
		return
	}
	registered := map[string]bool{} // APIService names
	c.sync(registered)
	close(c.synced)
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.changed:
			c.sync(registered)
		}
	}
}

// sync registers the group versions served now that are not registered, and removes those
// registered that are served no more.
func (c *crdRegistration) sync(registered map[string]bool) {
	crds, err := c.crds.List(labels.Everything())
	if err != nil {
		utilruntime.HandleError(err)
		return
	}
	served := map[string]bool{}
	for _, crd := range crds {
		for _, v := range crd.Spec.Versions {
			if !v.Served {
				continue
			}
			name := v.Name + "." + crd.Spec.Group
			served[name] = true
			if registered[name] {
				continue
			}
			registered[name] = true
			c.register.AddAPIServiceToSync(&apiregistrationv1.APIService{
				ObjectMeta: metav1.ObjectMeta{Name: name},
				Spec: apiregistrationv1.APIServiceSpec{
					Group:                crd.Spec.Group,
					Version:              v.Name,
					GroupPriorityMinimum: 1000, // after the built-in groups
					VersionPriority:      100,  // among themselves, by kube-like version names
				},
			})
		}
	}
	for name := range registered {
		if !served[name] {
			delete(registered, name)
			c.register.RemoveAPIServiceToSync(name)
		}
	}
}
