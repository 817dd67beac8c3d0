package chain

import (
	"fmt"
	"maps"

	apiextensionsapiserver "k8s.io/apiextensions-apiserver/pkg/apiserver"
	apiextensionsopenapi "k8s.io/apiextensions-apiserver/pkg/generated/openapi"
	"k8s.io/apimachinery/pkg/runtime"
	openapinamer "k8s.io/apiserver/pkg/endpoints/openapi"
	genericapiserver "k8s.io/apiserver/pkg/server"
	aggregatorscheme "k8s.io/kube-aggregator/pkg/apiserver/scheme"
	aggregatoropenapi "k8s.io/kube-aggregator/pkg/generated/openapi"
	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/apichain/apichain/servers/core"
	coreopenapi "github.com/apichain/apichain/servers/core/openapi"
)

// applyOpenAPI gives every server the OpenAPI definitions of every type in the chain: Core's
// generated ones, and those apiextensions-apiserver and kube-aggregator ship. OpenAPI v3 is
// required by the apiserver; v2 is what older kubectl explain reads.
func applyOpenAPI(c *genericapiserver.Config) error {
	coreScheme, err := core.NewScheme()
	if err != nil {
		return fmt.Errorf("openapi: %w", err)
	}
	namer := namer{openapinamer.NewDefinitionNamer(coreScheme, apiextensionsapiserver.Scheme, aggregatorscheme.Scheme)}
	c.OpenAPIConfig = genericapiserver.DefaultOpenAPIConfig(definitions, namer.DefinitionNamer)
	c.OpenAPIConfig.GetDefinitionName = namer.GetDefinitionName
	c.OpenAPIConfig.Info.Title = "Kubernetes"
	c.OpenAPIV3Config = genericapiserver.DefaultOpenAPIV3Config(definitions, namer.DefinitionNamer)
	c.OpenAPIV3Config.GetDefinitionName = namer.GetDefinitionName
	c.OpenAPIV3Config.Info.Title = "Kubernetes"
	return nil
}

func definitions(ref common.ReferenceCallback) map[string]common.OpenAPIDefinition {
	defs := coreopenapi.GetOpenAPIDefinitions(ref)
	maps.Copy(defs, apiextensionsopenapi.GetOpenAPIDefinitions(ref))
	maps.Copy(defs, aggregatoropenapi.GetOpenAPIDefinitions(ref))
	return defs
}

// namer names definitions and tags each with its group-version-kinds. Core registers its types
// under an internal version too (see servers/core/resource); that version is no API version, so
// it is left out of x-kubernetes-group-version-kind.
type namer struct {
	*openapinamer.DefinitionNamer
}

func (n namer) GetDefinitionName(name string) (string, spec.Extensions) {
	name, ext := n.DefinitionNamer.GetDefinitionName(name)
	gvks, ok := ext["x-kubernetes-group-version-kind"].([]interface{})
	if !ok {
		return name, ext
	}
	var kept []interface{}
	for _, g := range gvks {
		if m, ok := g.(map[string]interface{}); ok && m["version"] == runtime.APIVersionInternal {
			continue
		}
		kept = append(kept, g)
	}
	return name, spec.Extensions{"x-kubernetes-group-version-kind": kept}
}
