package aggregator

import (
	"context"
	"fmt"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	crdinformers "k8s.io/apiextensions-apiserver/pkg/client/informers/externalversions/apiextensions/v1"
	crdlisters "k8s.io/apiextensions-apiserver/pkg/client/listers/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
)

// autoRegistration is what crdRegistration needs of kube-aggregator's autoregister controller.
type autoRegistration interface {
	AddAPIServiceToSync(in *apiregistrationv1.APIService)
	RemoveAPIServiceToSync(name string)
}

// crdRegistration keeps a Local APIService for every served version of every CRD group, so that
// CRD groups appear in /apis and `kubectl get apiservices` as in kube-apiserver. It follows
// kubernetes pkg/controlplane/controller/crdregistration.
type crdRegistration struct {
	crds      crdlisters.CustomResourceDefinitionLister
	crdSynced cache.InformerSynced
	register  autoRegistration
	synced    chan struct{} // closed once the CRDs present at start are registered
	queue     workqueue.TypedRateLimitingInterface[schema.GroupVersion]
}

func newCRDRegistration(informer crdinformers.CustomResourceDefinitionInformer, register autoRegistration) (*crdRegistration, error) {
	c := &crdRegistration{
		crds:      informer.Lister(),
		crdSynced: informer.Informer().HasSynced,
		register:  register,
		synced:    make(chan struct{}),
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[schema.GroupVersion](),
			workqueue.TypedRateLimitingQueueConfig[schema.GroupVersion]{Name: "crd_autoregistration_controller"}),
	}
	enqueue := func(obj any) {
		if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = t.Obj
		}
		if crd, ok := obj.(*apiextensionsv1.CustomResourceDefinition); ok {
			for _, v := range crd.Spec.Versions {
				c.queue.Add(schema.GroupVersion{Group: crd.Spec.Group, Version: v.Name})
			}
		}
	}
	_, err := informer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: enqueue,
		// Both: a version removed from a CRD must lose its APIService.
		UpdateFunc: func(old, obj any) { enqueue(old); enqueue(obj) },
		DeleteFunc: enqueue,
	})
	return c, err
}

// Run registers the CRDs present at start, then follows changes until ctx is done.
func (c *crdRegistration) Run(ctx context.Context, workers int) {
	defer utilruntime.HandleCrash()
	defer c.queue.ShutDown()
	if !cache.WaitForNamedCacheSync("crd-autoregister", ctx.Done(), c.crdSynced) {
		return
	}
	crds, err := c.crds.List(labels.Everything())
	if err != nil {
		utilruntime.HandleError(err)
	}
	for _, crd := range crds {
		for _, v := range crd.Spec.Versions {
			if err := c.sync(schema.GroupVersion{Group: crd.Spec.Group, Version: v.Name}); err != nil {
				utilruntime.HandleError(err)
			}
		}
	}
	close(c.synced)
	for i := 0; i < workers; i++ {
		go wait.UntilWithContext(ctx, func(ctx context.Context) {
			for c.processNext() {
			}
		}, time.Second)
	}
	<-ctx.Done()
}

func (c *crdRegistration) processNext() bool {
	gv, quit := c.queue.Get()
	if quit {
		return false
	}
	defer c.queue.Done(gv)
	if err := c.sync(gv); err != nil {
		utilruntime.HandleError(fmt.Errorf("%v failed with: %w", gv, err))
		c.queue.AddRateLimited(gv)
		return true
	}
	c.queue.Forget(gv)
	return true
}

// sync registers gv's APIService while some CRD serves gv, and removes it otherwise.
func (c *crdRegistration) sync(gv schema.GroupVersion) error {
	name := gv.Version + "." + gv.Group
	crds, err := c.crds.List(labels.Everything())
	if err != nil {
		return err
	}
	for _, crd := range crds {
		if crd.Spec.Group != gv.Group {
			continue
		}
		for _, v := range crd.Spec.Versions {
			if v.Name == gv.Version && v.Served {
				c.register.AddAPIServiceToSync(&apiregistrationv1.APIService{
					ObjectMeta: metav1.ObjectMeta{Name: name},
					Spec: apiregistrationv1.APIServiceSpec{
						Group: gv.Group, Version: gv.Version,
						GroupPriorityMinimum: 1000, // CRDs sort after built-in groups
						VersionPriority:      100,  // and by kube-like version names among themselves
					},
				})
				return nil
			}
		}
	}
	c.register.RemoveAPIServiceToSync(name)
	return nil
}
