package apiservice

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
)

// Client writes and removes registrations through a chain's API, as the user of cfg.
type Client struct {
	dynamic dynamic.Interface
	kube    kubernetes.Interface
}

// NewClient returns a Client for the chain cfg reaches.
func NewClient(cfg *rest.Config) (*Client, error) {
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return &Client{dynamic: dyn, kube: kube}, nil
}

// CreateIdentity creates the server's ServiceAccount and its bindings (identityObjects) and
// returns them. It creates all or, when one fails, none: what it had created it deletes again.
func (c *Client) CreateIdentity(ctx context.Context, apiService string) ([]Ref, error) {
	return c.create(ctx, identityObjects(apiService))
}

// Register creates the Service, EndpointSlice and APIService of s, all or none, after
// validating s.
func (c *Client) Register(ctx context.Context, s Spec) ([]Ref, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return c.create(ctx, registrationObjects(s))
}

// Token is a token of the server's ServiceAccount, valid for lifetime (10 minutes at least):
// what `kubectl create token` asks for, with the chain's own audiences.
func (c *Client) Token(ctx context.Context, apiService string, lifetime time.Duration) (string, error) {
	sa := namesFor(apiService).serviceAccount
	seconds := int64(lifetime / time.Second)
	req, err := c.kube.CoreV1().ServiceAccounts(sa.Namespace).CreateToken(ctx, sa.Name,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &seconds}}, metav1.CreateOptions{})
	if err != nil {
		return "", fmt.Errorf("a token for serviceaccount %s/%s: %w", sa.Namespace, sa.Name, err)
	}
	return req.Status.Token, nil
}

// Existing lists the objects of apiService's registration (and of its identity, with identity)
// that exist already, whoever made them: a registration is added where none of them is.
func (c *Client) Existing(ctx context.Context, apiService string, identity bool) ([]Ref, error) {
	n := namesFor(apiService)
	refs := n.registration()
	if identity {
		refs = append(n.identity(), refs...)
	}
	var existing []Ref
	for _, r := range refs {
		_, err := c.resource(r).Get(ctx, r.Name, metav1.GetOptions{})
		switch {
		case err == nil:
			existing = append(existing, r)
		case !apierrors.IsNotFound(err):
			return nil, fmt.Errorf("reading %s: %w", r, err)
		}
	}
	return existing, nil
}

// create creates objs in order. If one fails, it deletes those it created and reports both.
func (c *Client) create(ctx context.Context, objs []object) ([]Ref, error) {
	var created []Ref
	for _, o := range objs {
		content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o.obj)
		if err == nil {
			_, err = c.resource(o.Ref).Create(ctx, &unstructured.Unstructured{Object: content}, metav1.CreateOptions{})
		}
		if err != nil {
			err = fmt.Errorf("creating %s: %w", o.Ref, err)
			if undo := c.Delete(ctx, created); undo != nil {
				err = errors.Join(err, fmt.Errorf("and undoing what was created before: %w", undo))
			}
			return nil, err
		}
		created = append(created, o.Ref)
	}
	return created, nil
}

// Delete deletes refs, last first; one that is gone already is no error. It runs to its end
// even when ctx has ended (an undo after Ctrl-C), within a minute.
func (c *Client) Delete(ctx context.Context, refs []Ref) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	var errs []error
	for _, r := range slices.Backward(refs) {
		if err := c.resource(r).Delete(ctx, r.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("deleting %s: %w", r, err))
		}
	}
	return errors.Join(errs...)
}

// Remove deletes what CreateIdentity and Register wrote for apiService, the APIService first,
// and returns what it deleted. It deletes only objects that carry ManagedByLabel, and nothing
// at all when the APIService is not one of those (a built-in group's, the metrics server's).
func (c *Client) Remove(ctx context.Context, apiService string) ([]Ref, error) {
	n := namesFor(apiService)
	var ours []Ref
	for _, r := range append(n.identity(), n.registration()...) {
		obj, err := c.resource(r).Get(ctx, r.Name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			continue
		case err != nil:
			return nil, fmt.Errorf("reading %s: %w", r, err)
		case obj.GetLabels()[ManagedByLabel] == ManagedBy:
			ours = append(ours, r)
		case r == n.apiService:
			return nil, fmt.Errorf("apiservice %s was not registered by chain apiservice add (it has no label %s=%s): left alone", apiService, ManagedByLabel, ManagedBy)
		}
	}
	if len(ours) == 0 {
		return nil, fmt.Errorf("apiservice %s: nothing registered by chain apiservice add under that name", apiService)
	}
	if err := c.Delete(ctx, ours); err != nil {
		return nil, err
	}
	slices.Reverse(ours)
	return ours, nil
}

// WaitAvailable waits until the APIService's Available condition is True. When ctx ends first,
// the error carries the condition's reason and message (FailedDiscoveryCheck: ... connection
// refused), as `kubectl get apiservice` would show them.
func (c *Client) WaitAvailable(ctx context.Context, apiService string) error {
	last := "no Available condition yet"
	err := wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		u, err := c.resource(apiServices).Get(ctx, apiService, metav1.GetOptions{})
		if err != nil {
			last = err.Error()
			return false, nil
		}
		var svc apiregistrationv1.APIService
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &svc); err != nil {
			return false, err
		}
		for _, cond := range svc.Status.Conditions {
			if cond.Type == apiregistrationv1.Available {
				if cond.Status == apiregistrationv1.ConditionTrue {
					return true, nil
				}
				last = fmt.Sprintf("Available=%s (%s): %s", cond.Status, cond.Reason, cond.Message)
			}
		}
		return false, nil
	})
	if err != nil {
		return fmt.Errorf("apiservice %s did not become available: %s", apiService, last)
	}
	return nil
}

func (c *Client) resource(r Ref) dynamic.ResourceInterface {
	if r.Namespace == "" {
		return c.dynamic.Resource(r.Resource)
	}
	return c.dynamic.Resource(r.Resource).Namespace(r.Namespace)
}
