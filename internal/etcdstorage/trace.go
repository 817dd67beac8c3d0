package etcdstorage

import (
	"context"
	"path"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/apiserver/pkg/storage"

	"github.com/apichain/apichain/internal/tracing"
)

// A request's storage, as its trace shows it. k8s.io/apiserver's etcd3 store has spans of its
// own ("Get etcd3", "GuaranteedUpdate etcd3") and its watch cache too ("cacher.GetList"), but
// none says the revision, nor whether the watch cache answered or etcd did: a span of the
// chain's, above both, says it. Each store of a traced Clients is wrapped twice: tracedStore
// outside (above the watch cache) opens the span; etcdMark inside (around the etcd3 store)
// notes, for the span, that etcd was asked.

// tracedStore gives every operation of a store its span (tracing.StorageSpanName): operation,
// key, the revision read or written, and, for a store behind a watch cache, whether the cache
// answered.
type tracedStore struct {
	storage.Interface
	// prefix is the etcd prefix of the store's keys (/registry): the span names the key as etcd
	// holds it.
	prefix string
	cached bool
}

func (s tracedStore) Get(ctx context.Context, key string, opts storage.GetOptions, out runtime.Object) error {
	ctx, op := s.start(ctx, "get", key)
	err := s.Interface.Get(ctx, key, opts, out)
	op.end(err, revisionOf(out))
	return err
}

func (s tracedStore) GetList(ctx context.Context, key string, opts storage.ListOptions, out runtime.Object) error {
	ctx, op := s.start(ctx, "list", key)
	err := s.Interface.GetList(ctx, key, opts, out)
	op.end(err, listRevisionOf(out))
	return err
}

func (s tracedStore) Watch(ctx context.Context, key string, opts storage.ListOptions) (watch.Interface, error) {
	ctx, op := s.start(ctx, "watch", key)
	w, err := s.Interface.Watch(ctx, key, opts)
	op.end(err, opts.ResourceVersion)
	return w, err
}

func (s tracedStore) Create(ctx context.Context, key string, obj, out runtime.Object, ttl uint64) error {
	ctx, op := s.start(ctx, "create", key)
	err := s.Interface.Create(ctx, key, obj, out, ttl)
	op.end(err, revisionOf(out))
	return err
}

func (s tracedStore) GuaranteedUpdate(ctx context.Context, key string, destination runtime.Object, ignoreNotFound bool,
	preconditions *storage.Preconditions, tryUpdate storage.UpdateFunc, cachedExistingObject runtime.Object) error {
	ctx, op := s.start(ctx, "update", key)
	err := s.Interface.GuaranteedUpdate(ctx, key, destination, ignoreNotFound, preconditions, tryUpdate, cachedExistingObject)
	op.end(err, revisionOf(destination))
	return err
}

func (s tracedStore) Delete(ctx context.Context, key string, out runtime.Object, preconditions *storage.Preconditions,
	validateDeletion storage.ValidateObjectFunc, cachedExistingObject runtime.Object, opts storage.DeleteOptions) error {
	ctx, op := s.start(ctx, "delete", key)
	err := s.Interface.Delete(ctx, key, out, preconditions, validateDeletion, cachedExistingObject, opts)
	op.end(err, revisionOf(out))
	return err
}

// operation is one storage operation's span; nil when the request is not recorded.
type operation struct {
	span trace.Span
	// etcd is set by etcdMark when etcd was asked (only for a read behind a watch cache).
	etcd *bool
}

type etcdAskedKey struct{}

func (s tracedStore) start(ctx context.Context, op, key string) (context.Context, *operation) {
	if !tracing.Recording(ctx) {
		return ctx, nil
	}
	// Room for the revision and the watch cache's part to come.
	attrs := append(make([]attribute.KeyValue, 0, 4),
		attribute.String(tracing.AttrStorageOperation, op), attribute.String(tracing.AttrStorageKey, path.Join("/", s.prefix, key)))
	ctx, span := tracing.Start(ctx, tracing.StorageSpanName(op), attrs...)
	o := &operation{span: span}
	if s.cached && (op == "get" || op == "list") {
		// Only a read may be served by the watch cache; a write always goes to etcd.
		o.etcd = new(bool)
		ctx = context.WithValue(ctx, etcdAskedKey{}, o.etcd)
	}
	return ctx, o
}

func (o *operation) end(err error, revision string) {
	if o == nil {
		return
	}
	if revision != "" {
		o.span.SetAttributes(attribute.String(tracing.AttrStorageRevision, revision))
	}
	if o.etcd != nil {
		o.span.SetAttributes(attribute.Bool(tracing.AttrWatchCache, !*o.etcd))
	}
	if err != nil {
		o.span.SetStatus(codes.Error, err.Error())
	}
	o.span.End()
}

// etcdMark is the etcd3 store behind a watch cache, noting each read that reaches it.
type etcdMark struct{ storage.Interface }

func markEtcd(ctx context.Context) {
	if asked, ok := ctx.Value(etcdAskedKey{}).(*bool); ok {
		*asked = true
	}
}

func (s etcdMark) Get(ctx context.Context, key string, opts storage.GetOptions, out runtime.Object) error {
	markEtcd(ctx)
	return s.Interface.Get(ctx, key, opts, out)
}

func (s etcdMark) GetList(ctx context.Context, key string, opts storage.ListOptions, out runtime.Object) error {
	markEtcd(ctx)
	return s.Interface.GetList(ctx, key, opts, out)
}

func (s etcdMark) Watch(ctx context.Context, key string, opts storage.ListOptions) (watch.Interface, error) {
	markEtcd(ctx)
	return s.Interface.Watch(ctx, key, opts)
}

func revisionOf(obj runtime.Object) string {
	if a, err := meta.Accessor(obj); err == nil && a.GetResourceVersion() != "" {
		return a.GetResourceVersion()
	}
	return ""
}

func listRevisionOf(obj runtime.Object) string {
	if l, err := meta.ListAccessor(obj); err == nil {
		return l.GetResourceVersion()
	}
	return ""
}
