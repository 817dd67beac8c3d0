package aggregator

import (
	"fmt"

	crdinformers "k8s.io/apiextensions-apiserver/pkg/client/informers/externalversions/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/server"
	"k8s.io/klog/v2"
	aggregatorapiserver "k8s.io/kube-aggregator/pkg/apiserver"
	apiregistrationclient "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset/typed/apiregistration/v1"
	"k8s.io/kube-aggregator/pkg/controllers/autoregister"
)

// Server is the Aggregator.
type Server struct {
	*aggregatorapiserver.APIAggregator
}

// New builds the Aggregator in front of delegate (Core), with kube-apiserver's automatic
// APIService registration: a Local APIService for every group version the delegates serve and
// for every CRD group version (crds), kept in sync by named post-start hooks.
func (c CompletedConfig) New(delegate server.DelegationTarget, crds crdinformers.CustomResourceDefinitionInformer) (*Server, error) {
	s, err := c.NewWithDelegate(delegate)
	if err != nil {
		return nil, err
	}
	client, err := apiregistrationclient.NewForConfig(c.GenericConfig.LoopbackClientConfig)
	if err != nil {
		return nil, err
	}
	apiServiceInformer := s.APIRegistrationInformers.Apiregistration().V1().APIServices()
	auto := autoregister.NewAutoRegisterController(apiServiceInformer, client)
	builtIn := apiServicesToRegister(delegate, auto)
	crdReg, err := newCRDRegistration(crds, auto)
	if err != nil {
		return nil, err
	}

	// Discovery lists groups and versions in kube-apiserver's order.
	if m := c.GenericConfig.AggregatedDiscoveryGroupManager; m != nil {
		for gv, p := range priorities {
			m.SetGroupVersionPriority(metav1.GroupVersion(gv), int(p.group), int(p.version))
		}
	}

	err = s.GenericAPIServer.AddPostStartHook("start-aggregator-autoregistration", func(ctx server.PostStartHookContext) error {
		go crdReg.Run(ctx)
		go func() {
			// Let the CRDs present at start be registered first, so that the autoregister
			// controller's first pass does not delete their APIServices.
			select {
			case <-crdReg.synced:
			case <-ctx.Done():
				return
			}
			klog.V(2).Info("initial CRD sync complete, starting APIService autoregistration")
			auto.Run(5, ctx.Done())
		}()
		return nil
	})
	if err != nil {
		return nil, err
	}
	check, err := apiServicesAvailable("autoregister-completion", builtIn, apiServiceInformer)
	if err != nil {
		return nil, err
	}
	if err := s.GenericAPIServer.AddBootSequenceHealthChecks(check); err != nil {
		return nil, fmt.Errorf("adding autoregister-completion check: %w", err)
	}
	return &Server{s}, nil
}

// PrepareRun builds the merged OpenAPI once every delegate has installed its own, then prepares
// the generic server.
func (s *Server) PrepareRun() (PreparedServer, error) {
	p, err := s.APIAggregator.PrepareRun()
	if err != nil {
		return PreparedServer{}, err
	}
	return PreparedServer{runnable: p}, nil
}
