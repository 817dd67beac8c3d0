// Package rootcacertpublisher puts the chain's CA certificate in every namespace, as the
// ConfigMap kube-root-ca.crt.
//
// A pod reaches the API server at kubernetes.default.svc and needs the CA that verifies its
// serving certificate; projected service-account volumes mount it from this ConfigMap.
// kube-controller-manager's root-ca-certificate-publisher controller keeps the ConfigMap in every
// namespace: created for a new namespace, made again when deleted, put back when changed. Ours
// does the same with the CA it is given (the chain's server CA).
//
// Left out: nothing a user sees; kube's metrics on sync duration.
package rootcacertpublisher

import (
	"context"
	"fmt"
	"maps"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/apichain/apichain/controllers/internal/loop"
)

// The ConfigMap as kube-controller-manager publishes it: its name, the key of the certificate,
// and the annotation that says what it is for.
const (
	ConfigMapName         = "kube-root-ca.crt"
	CertKey               = "ca.crt"
	DescriptionAnnotation = "kubernetes.io/description"
	Description           = "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. " +
		"No other usage is guaranteed across distributions of Kubernetes clusters."
)

// Publisher keeps kube-root-ca.crt in every namespace. Build it with New, start it with Run.
type Publisher struct {
	client     kubernetes.Interface
	ca         string
	namespaces corelisters.NamespaceLister
	configMaps corelisters.ConfigMapLister
	synced     []cache.InformerSynced
	queue      loop.Queue // namespace names
}

// New returns a publisher of the PEM bundle ca that watches namespaces and ConfigMaps through
// the informers and writes with client.
func New(client kubernetes.Interface, ca []byte, namespaces coreinformers.NamespaceInformer, configMaps coreinformers.ConfigMapInformer) (*Publisher, error) {
	if len(ca) == 0 {
		return nil, fmt.Errorf("no CA certificate to publish")
	}
	p := &Publisher{
		client:     client,
		ca:         string(ca),
		namespaces: namespaces.Lister(),
		configMaps: configMaps.Lister(),
		synced:     []cache.InformerSynced{namespaces.Informer().HasSynced, configMaps.Informer().HasSynced},
		queue:      loop.NewQueue("root_ca_cert_publisher"),
	}
	if _, err := namespaces.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { p.queue.Add(obj.(*corev1.Namespace).Name) },
		UpdateFunc: func(_, obj any) { p.queue.Add(obj.(*corev1.Namespace).Name) },
	}); err != nil {
		return nil, err
	}
	// Ours changed or deleted: put it back.
	onOurs := func(obj any) {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		if cm, ok := obj.(*corev1.ConfigMap); ok && cm.Name == ConfigMapName {
			p.queue.Add(cm.Namespace)
		}
	}
	_, err := configMaps.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		UpdateFunc: func(_, obj any) { onOurs(obj) },
		DeleteFunc: onOurs,
	})
	return p, err
}

// Run publishes with workers goroutines until ctx is done, and returns once they have finished.
func (p *Publisher) Run(ctx context.Context, workers int) {
	loop.Run(ctx, p.queue, workers, p.sync, p.synced...)
}

// sync makes kube-root-ca.crt in namespace ns hold the CA, creating it if missing.
func (p *Publisher) sync(ctx context.Context, ns string) error {
	namespace, err := p.namespaces.Get(ns)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if namespace.DeletionTimestamp != nil {
		return nil // going away
	}
	data := map[string]string{CertKey: p.ca}
	cm, err := p.configMaps.ConfigMaps(ns).Get(ConfigMapName)
	if apierrors.IsNotFound(err) {
		cm = &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: ConfigMapName, Annotations: map[string]string{DescriptionAnnotation: Description}},
			Data:       data,
		}
		_, err = p.client.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{})
		if err == nil || apierrors.IsAlreadyExists(err) || apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause) {
			return nil
		}
		return fmt.Errorf("creating %s/%s: %w", ns, ConfigMapName, err)
	}
	if err != nil {
		return err
	}
	if maps.Equal(cm.Data, data) && cm.Annotations[DescriptionAnnotation] == Description {
		return nil
	}
	cm = cm.DeepCopy()
	cm.Data = data
	if cm.Annotations == nil {
		cm.Annotations = map[string]string{}
	}
	cm.Annotations[DescriptionAnnotation] = Description
	if _, err := p.client.CoreV1().ConfigMaps(ns).Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("updating %s/%s: %w", ns, ConfigMapName, err)
	}
	return nil
}
