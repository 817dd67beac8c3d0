package serviceaccount

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// InformerLookup finds objects in the shared informers' caches and, when a cache does not have
// them (yet), asks the API through client, which must not itself authenticate with a service
// account token. It asks the factory for its informers now, before the factory starts.
func InformerLookup(client kubernetes.Interface, factory informers.SharedInformerFactory) (Lookup, error) {
	listers := map[string]cache.GenericLister{}
	for _, resource := range []string{"serviceaccounts", "pods", "secrets", "nodes"} {
		informer, err := factory.ForResource(corev1.SchemeGroupVersion.WithResource(resource))
		if err != nil {
			return nil, fmt.Errorf("informer of %s: %w", resource, err)
		}
		listers[resource] = informer.Lister()
	}
	return func(ctx context.Context, resource, namespace, name string) (metav1.Object, error) {
		lister := listers[resource]
		if lister == nil {
			return nil, fmt.Errorf("tokens do not name %s", resource)
		}
		var cached interface {
			Get(name string) (runtime.Object, error)
		} = lister
		if namespace != "" {
			cached = lister.ByNamespace(namespace)
		}
		obj, err := cached.Get(name)
		if err != nil {
			obj, err = client.CoreV1().RESTClient().Get().Namespace(namespace).Resource(resource).Name(name).Do(ctx).Get()
			if err != nil {
				return nil, err
			}
		}
		return meta.Accessor(obj)
	}, nil
}
