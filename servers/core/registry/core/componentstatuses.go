package core

// componentstatuses: kube-apiserver's old view of the control plane's health (deprecated since
// v1.19, and every answer says so: k8s.io/api marks the type, and the apiserver adds the
// warning). It is read-only (get and list), stored nowhere: each read probes the components.
// kube-apiserver probes etcd, and the scheduler and controller-manager on their default ports
// on 127.0.0.1; the chain runs those two in its own process, so it asks the chain instead.

import (
	"context"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/registry/generic"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	"k8s.io/apiserver/pkg/storage/storagebackend/factory"

	"github.com/apichain/apichain/servers/core/printers"
)

// Health is what a probe found about one component: whether it is healthy, with the message
// (and error) `kubectl get componentstatuses` shows.
type Health struct {
	Healthy        bool
	Message, Error string
}

// Probe asks one component how it is.
type Probe func(ctx context.Context) Health

// probeTimeout bounds one probe, as kube-apiserver's.
const probeTimeout = 20 * time.Second

// EtcdProbe asks the etcd cluster that storage uses for a key, as kube-apiserver's etcd check
// does: "ok", or why not.
func EtcdProbe(storage storagebackend.Config) Probe {
	return func(ctx context.Context) Health {
		prober, err := factory.CreateProber(storage)
		if err != nil {
			return Health{Error: err.Error()}
		}
		defer func() { _ = prober.Close() }()
		ctx, cancel := context.WithTimeout(ctx, probeTimeout)
		defer cancel()
		if err := prober.Probe(ctx); err != nil {
			return Health{Error: err.Error()}
		}
		return Health{Healthy: true, Message: "ok"}
	}
}

// componentStatusREST serves componentstatuses from probes, by component name.
type componentStatusREST struct {
	probes map[string]Probe
}

var (
	_ rest.Getter               = &componentStatusREST{}
	_ rest.Lister               = &componentStatusREST{}
	_ rest.Scoper               = &componentStatusREST{}
	_ rest.ShortNamesProvider   = &componentStatusREST{}
	_ rest.SingularNameProvider = &componentStatusREST{}
)

func (r *componentStatusREST) New() runtime.Object     { return &corev1.ComponentStatus{} }
func (r *componentStatusREST) NewList() runtime.Object { return &corev1.ComponentStatusList{} }
func (r *componentStatusREST) Destroy()                {}
func (r *componentStatusREST) NamespaceScoped() bool   { return false }
func (r *componentStatusREST) ShortNames() []string    { return []string{"cs"} }
func (r *componentStatusREST) GetSingularName() string { return "componentstatus" }

func (r *componentStatusREST) ConvertToTable(ctx context.Context, obj runtime.Object, options runtime.Object) (*metav1.Table, error) {
	return printers.ComponentStatus.ConvertToTable(ctx, obj, options)
}

// Get probes one component; an unknown name is NotFound.
func (r *componentStatusREST) Get(ctx context.Context, name string, _ *metav1.GetOptions) (runtime.Object, error) {
	probe, ok := r.probes[name]
	if !ok {
		return nil, apierrors.NewNotFound(corev1.Resource("componentstatuses"), name)
	}
	return statusOf(ctx, name, probe), nil
}

// List probes every component at once. Components have no labels, and their only fields are
// metadata.name (and an empty metadata.namespace): selectors filter on those.
func (r *componentStatusREST) List(ctx context.Context, options *metainternalversion.ListOptions) (runtime.Object, error) {
	label, field := labels.Everything(), fields.Everything()
	if options != nil && options.LabelSelector != nil {
		label = options.LabelSelector
	}
	if options != nil && options.FieldSelector != nil {
		field = options.FieldSelector
	}
	list := &corev1.ComponentStatusList{Items: make([]corev1.ComponentStatus, len(r.probes))}
	var wg sync.WaitGroup
	names := slices.Sorted(func(yield func(string) bool) {
		for name := range r.probes {
			if !yield(name) {
				return
			}
		}
	})
	for i, name := range names {
		wg.Go(func() { list.Items[i] = *statusOf(ctx, name, r.probes[name]) })
	}
	wg.Wait()
	list.Items = slices.DeleteFunc(list.Items, func(s corev1.ComponentStatus) bool {
		return !label.Matches(labels.Set(s.Labels)) || !field.Matches(generic.ObjectMetaFieldsSet(&s.ObjectMeta, true))
	})
	return list, nil
}

func statusOf(ctx context.Context, name string, probe Probe) *corev1.ComponentStatus {
	h := probe(ctx)
	status := corev1.ConditionFalse
	if h.Healthy {
		status = corev1.ConditionTrue
	}
	return &corev1.ComponentStatus{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Conditions: []corev1.ComponentCondition{{Type: corev1.ComponentHealthy, Status: status, Message: h.Message, Error: h.Error}},
	}
}
