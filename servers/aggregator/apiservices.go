package aggregator

import (
	"fmt"
	"net/http"
	"strings"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apiserver/pkg/server"
	"k8s.io/apiserver/pkg/server/healthz"
	"k8s.io/client-go/tools/cache"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	v1helper "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1/helper"
	informers "k8s.io/kube-aggregator/pkg/client/informers/externalversions/apiregistration/v1"
	"k8s.io/kube-aggregator/pkg/controllers/autoregister"
)

// priority orders groups and versions in discovery (and so in `kubectl api-resources`).
type priority struct{ group, version int32 }

// priorities are kube-apiserver's, for the GA versions of its built-in groups
// (pkg/controlplane/apiserver/aggregator.go and cmd/kube-apiserver/app/aggregator.go). A group
// version served by Core but missing here gets no APIService, as in kube-apiserver.
var priorities = map[schema.GroupVersion]priority{
	{Group: "", Version: "v1"}:                             {18000, 1},
	{Group: "apps", Version: "v1"}:                         {17800, 15},
	{Group: "events.k8s.io", Version: "v1"}:                {17750, 15},
	{Group: "authentication.k8s.io", Version: "v1"}:        {17700, 15},
	{Group: "authorization.k8s.io", Version: "v1"}:         {17600, 15},
	{Group: "autoscaling", Version: "v1"}:                  {17500, 15},
	{Group: "autoscaling", Version: "v2"}:                  {17500, 30},
	{Group: "batch", Version: "v1"}:                        {17400, 15},
	{Group: "certificates.k8s.io", Version: "v1"}:          {17300, 15},
	{Group: "networking.k8s.io", Version: "v1"}:            {17200, 15},
	{Group: "policy", Version: "v1"}:                       {17100, 15},
	{Group: "rbac.authorization.k8s.io", Version: "v1"}:    {17000, 15},
	{Group: "storage.k8s.io", Version: "v1"}:               {16800, 15},
	{Group: "apiextensions.k8s.io", Version: "v1"}:         {16700, 15},
	{Group: "admissionregistration.k8s.io", Version: "v1"}: {16700, 15},
	{Group: "scheduling.k8s.io", Version: "v1"}:            {16600, 15},
	{Group: "coordination.k8s.io", Version: "v1"}:          {16500, 15},
	{Group: "node.k8s.io", Version: "v1"}:                  {16300, 15},
	{Group: "discovery.k8s.io", Version: "v1"}:             {16200, 15},
	{Group: "resource.k8s.io", Version: "v1"}:              {16200, 21},
	{Group: "flowcontrol.apiserver.k8s.io", Version: "v1"}: {16100, 21},
	{Group: "storagemigration.k8s.io", Version: "v1"}:      {15800, 15},
}

// makeAPIService is the Local APIService (no spec.service: served by the delegates) of gv.
func makeAPIService(gv schema.GroupVersion) *apiregistrationv1.APIService {
	p, ok := priorities[gv]
	if !ok {
		return nil // an unknown group version could be a CRD's, which crdregistration handles
	}
	return &apiregistrationv1.APIService{
		ObjectMeta: metav1.ObjectMeta{Name: gv.Version + "." + gv.Group},
		Spec: apiregistrationv1.APIServiceSpec{
			Group: gv.Group, Version: gv.Version,
			GroupPriorityMinimum: p.group, VersionPriority: p.version,
		},
	}
}

// apiServicesToRegister registers, to be synced on start, a Local APIService for every group
// version the delegates list (kube-apiserver's apiServicesToRegister).
func apiServicesToRegister(delegate server.DelegationTarget, registration autoregister.AutoAPIServiceRegistration) []*apiregistrationv1.APIService {
	var out []*apiregistrationv1.APIService
	for _, path := range delegate.ListedPaths() {
		var gv schema.GroupVersion
		switch tokens := strings.Split(path, "/"); {
		case path == "/api/v1":
			gv = schema.GroupVersion{Version: "v1"}
		case strings.HasPrefix(path, "/apis/") && len(tokens) == 4:
			gv = schema.GroupVersion{Group: tokens[2], Version: tokens[3]}
		default:
			continue
		}
		if svc := makeAPIService(gv); svc != nil {
			registration.AddAPIServiceToSyncOnStart(svc)
			out = append(out, svc)
		}
	}
	return out
}

// apiServicesAvailable is a /readyz check that passes once every given APIService has been
// seen Available (kube-apiserver's autoregister-completion check).
func apiServicesAvailable(name string, services []*apiregistrationv1.APIService, informer informers.APIServiceInformer) (healthz.HealthChecker, error) {
	var mu sync.RWMutex
	pending := sets.New[string]()
	for _, s := range services {
		pending.Insert(s.Name)
	}
	seen := func(obj any) {
		s, ok := obj.(*apiregistrationv1.APIService)
		if !ok || !v1helper.IsAPIServiceConditionTrue(s, apiregistrationv1.Available) {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		pending.Delete(s.Name)
	}
	_, err := informer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    seen,
		UpdateFunc: func(_, obj any) { seen(obj) },
	})
	if err != nil {
		return nil, err
	}
	return healthz.NamedCheck(name, func(*http.Request) error {
		mu.RLock()
		defer mu.RUnlock()
		if pending.Len() > 0 {
			return fmt.Errorf("missing APIService: %v", sets.List(pending))
		}
		return nil
	}), nil
}
