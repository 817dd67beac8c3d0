package serviceaccount

// Ported from kubernetes v1.37.2 pkg/controller/serviceaccount/tokengetter.go: objects are read
// from informers first, and from the API when the informer does not (yet) have them.

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	corev1listers "k8s.io/client-go/listers/core/v1"
)

type clientGetter struct {
	client               kubernetes.Interface
	secretLister         corev1listers.SecretLister
	serviceAccountLister corev1listers.ServiceAccountLister
	podLister            corev1listers.PodLister
	nodeLister           corev1listers.NodeLister
}

// NewGetterFromClient returns a TokenGetter reading through the listers, falling back to client,
// which must not itself authenticate with a service account token.
func NewGetterFromClient(c kubernetes.Interface, secrets corev1listers.SecretLister, serviceAccounts corev1listers.ServiceAccountLister, pods corev1listers.PodLister, nodes corev1listers.NodeLister) TokenGetter {
	return clientGetter{c, secrets, serviceAccounts, pods, nodes}
}

func (c clientGetter) GetServiceAccount(ctx context.Context, namespace, name string) (*corev1.ServiceAccount, error) {
	if sa, err := c.serviceAccountLister.ServiceAccounts(namespace).Get(name); err == nil {
		return sa, nil
	}
	return c.client.CoreV1().ServiceAccounts(namespace).Get(ctx, name, metav1.GetOptions{})
}

func (c clientGetter) GetPod(ctx context.Context, namespace, name string) (*corev1.Pod, error) {
	if pod, err := c.podLister.Pods(namespace).Get(name); err == nil {
		return pod, nil
	}
	return c.client.CoreV1().Pods(namespace).Get(ctx, name, metav1.GetOptions{})
}

func (c clientGetter) GetSecret(ctx context.Context, namespace, name string) (*corev1.Secret, error) {
	if secret, err := c.secretLister.Secrets(namespace).Get(name); err == nil {
		return secret, nil
	}
	return c.client.CoreV1().Secrets(namespace).Get(ctx, name, metav1.GetOptions{})
}

func (c clientGetter) GetNode(ctx context.Context, name string) (*corev1.Node, error) {
	if node, err := c.nodeLister.Get(name); err == nil {
		return node, nil
	}
	return c.client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
}
