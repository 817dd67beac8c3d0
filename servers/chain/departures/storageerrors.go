package departures

import (
	"context"
	"errors"
	"fmt"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/generic"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	"k8s.io/apiserver/pkg/storage/storagebackend/factory"
	"k8s.io/client-go/tools/cache"
)

// StorageErrorsAsStatus wraps a server's RESTOptionsGetter so that every store it builds answers
// the errors of etcd's client as Kubernetes Statuses:
//
//   - etcd refusing an object as too large ("etcdserver: request is too large" above its
//     --max-request-bytes, or the client's own 2 MiB limit on a message) is 413
//     RequestEntityTooLarge: the request is at fault, as with a body over 3 MiB;
//   - a deadline passed while etcd was asked is 504 Timeout;
//   - any other error of etcd's (no space, leader changed, unavailable, ...) is 500
//     InternalError.
//
// In k8s.io/apiserver these reach the handlers as plain errors, and a plain error becomes a 500
// without a reason ("apiserver received an error that is not an metav1.Status", in
// kube-apiserver too: kubernetes/kubernetes#112152). Giving each a reason keeps "a 500 without a
// reason" meaning "the request could not be applied to the object", which withBadInputAs4xx
// answers 400 for patches.
//
// Wrapped are what the handlers of creates, updates, patches, gets and lists call: Create, Get
// (dry-run updates read the object with it too), GetList and GuaranteedUpdate; deletes and
// watches are left as k8s.io/apiserver has them. What GuaranteedUpdate's update function
// returns (the patch, admission, validation: the request's own errors) passes through
// unchanged, as do errors that are already Statuses or storage's own typed errors, which the
// registry maps itself.
func StorageErrorsAsStatus(g generic.RESTOptionsGetter) generic.RESTOptionsGetter {
	return statusErrorsGetter{g}
}

type statusErrorsGetter struct{ generic.RESTOptionsGetter }

func (g statusErrorsGetter) GetRESTOptions(resource schema.GroupResource, example runtime.Object) (generic.RESTOptions, error) {
	opts, err := g.RESTOptionsGetter.GetRESTOptions(resource, example)
	if err != nil {
		return opts, err
	}
	decorate := opts.Decorator
	opts.Decorator = func(config *storagebackend.ConfigForResource, prefix string, keyFunc func(runtime.Object) (string, error),
		newFunc, newListFunc func() runtime.Object, attrs storage.AttrFunc, trigger storage.IndexerFuncs, indexers *cache.Indexers) (storage.Interface, factory.DestroyFunc, error) {
		s, destroy, err := decorate(config, prefix, keyFunc, newFunc, newListFunc, attrs, trigger, indexers)
		if err != nil {
			return nil, nil, err
		}
		return statusErrors{s}, destroy, nil
	}
	return opts, nil
}

// statusErrors is a store whose etcd errors are Statuses (see StorageErrorsAsStatus).
type statusErrors struct{ storage.Interface }

func (s statusErrors) Create(ctx context.Context, key string, obj, out runtime.Object, ttl uint64) error {
	return asStatus(s.Interface.Create(ctx, key, obj, out, ttl), true)
}

func (s statusErrors) Get(ctx context.Context, key string, opts storage.GetOptions, out runtime.Object) error {
	return asStatus(s.Interface.Get(ctx, key, opts, out), false)
}

func (s statusErrors) GetList(ctx context.Context, key string, opts storage.ListOptions, out runtime.Object) error {
	return asStatus(s.Interface.GetList(ctx, key, opts, out), false)
}

func (s statusErrors) GuaranteedUpdate(ctx context.Context, key string, destination runtime.Object, ignoreNotFound bool,
	preconditions *storage.Preconditions, tryUpdate storage.UpdateFunc, cachedExistingObject runtime.Object) error {
	var requests error // the last error of the update function: the request's, not etcd's
	update := func(input runtime.Object, res storage.ResponseMeta) (runtime.Object, *uint64, error) {
		out, ttl, err := tryUpdate(input, res)
		requests = err
		return out, ttl, err
	}
	err := s.Interface.GuaranteedUpdate(ctx, key, destination, ignoreNotFound, preconditions, update, cachedExistingObject)
	if err != nil && err == requests {
		return err
	}
	return asStatus(err, true)
}

// asStatus turns an error of etcd's client into a Status and leaves any other error as it is.
// A write is told when etcd finds it too large.
func asStatus(err error, write bool) error {
	var apiStatus apierrors.APIStatus
	var storageErr *storage.StorageError
	switch {
	case err == nil, errors.As(err, &apiStatus), errors.As(err, &storageErr), storage.IsInvalidError(err), storage.IsInternalError(err):
		return err
	case write && tooLarge(err):
		return apierrors.NewRequestEntityTooLargeError(fmt.Sprintf("the object is too large to store: %v", err))
	case errors.Is(err, context.DeadlineExceeded) || status.Code(err) == codes.DeadlineExceeded:
		return apierrors.NewTimeoutError(fmt.Sprintf("storage did not answer in time: %v", err), 0)
	default:
		return apierrors.NewInternalError(err)
	}
}

// tooLarge tells etcd's refusals of an object for its size: the server's, over its
// --max-request-bytes, and the client's, over its own limit on a message (gRPC's
// ResourceExhausted, which the server also uses for "no space" and "too many requests": those
// are known etcd errors, and not this).
func tooLarge(err error) bool {
	if known, ok := rpctypes.Error(err).(rpctypes.EtcdError); ok {
		return known == rpctypes.ErrRequestTooLarge
	}
	return status.Code(err) == codes.ResourceExhausted
}
