package chain

import (
	"fmt"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/endpoints/handlers/responsewriters"
	"k8s.io/apiserver/pkg/endpoints/request"

	genericapifilters "k8s.io/apiserver/pkg/endpoints/filters"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/apiserver/pkg/util/notfoundhandler"

	"github.com/apichain/apichain/servers/aggregator"
)

// CreateServerChain builds the three servers inner-first and links them by delegation, as
// kube-apiserver's CreateServerChain does. The returned Aggregator is the head: it owns the
// listener and the filter chain, and runs the others' post-start hooks and health checks.
func CreateServerChain(c CompletedConfig) (*aggregator.Server, error) {
	// Unknown paths end here: 503 until every server has installed its routes (so that a client
	// racing start-up never takes a 404 for an answer), 404 after.
	notFound := notFoundStatus{
		serializer: c.Core.Generic.Serializer,
		starting:   notfoundhandler.New(c.Core.Generic.Serializer, genericapifilters.NoMuxAndDiscoveryIncompleteKey),
	}
	notFoundServer := genericapiserver.NewEmptyDelegateWithCustomHandler(answeredBy(serverNotFound, notFound))

	extensionsServer, err := c.Extensions.New(notFoundServer)
	if err != nil {
		return nil, fmt.Errorf("creating apiextensions server: %w", err)
	}
	labelDelegate(extensionsServer.GenericAPIServer, serverExtensions)

	coreServer, err := c.Core.New(extensionsServer.GenericAPIServer)
	if err != nil {
		return nil, fmt.Errorf("creating core server: %w", err)
	}
	labelDelegate(coreServer.GenericAPIServer, serverCore)
	// Core's OpenAPI v2 document builds on the other core while the Aggregator is built (v3
	// first, before the Aggregator: see InstallOpenAPI); the Aggregator's PrepareRun reads them.
	openAPIInstalled := coreServer.InstallOpenAPI()

	aggregatorServer, err := c.Aggregator.New(coreServer.GenericAPIServer, extensionsServer.CRDInformers().Apiextensions().V1().CustomResourceDefinitions())
	openAPIInstalled()
	if err != nil {
		return nil, fmt.Errorf("creating aggregator: %w", err)
	}
	c.label.apiServices = aggregatorServer.APIRegistrationInformers.Apiregistration().V1().APIServices().Lister()
	return aggregatorServer, nil
}

// notFoundStatus is upstream's notfoundhandler, whose 404 is the plain text "404 page not found",
// answering the 404 as a NotFound Status instead, as every other error of the chain is.
type notFoundStatus struct {
	serializer runtime.NegotiatedSerializer
	starting   http.Handler
}

func (h notFoundStatus) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !genericapifilters.NoMuxAndDiscoveryIncompleteKey(r.Context()) {
		h.starting.ServeHTTP(w, r) // 503: try again
		return
	}
	gv, verb, gr, name := schema.GroupVersion{}, "get", schema.GroupResource{}, ""
	if info, ok := request.RequestInfoFrom(r.Context()); ok {
		gv = schema.GroupVersion{Group: info.APIGroup, Version: info.APIVersion}
		verb, gr, name = info.Verb, schema.GroupResource{Group: info.APIGroup, Resource: info.Resource}, info.Name
	}
	err := apierrors.NewGenericServerResponse(http.StatusNotFound, verb, gr, name, "", 0, false)
	responsewriters.ErrorNegotiated(err, h.serializer, gv, w, r)
}
