package admissionregistration

import (
	"context"
	"fmt"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/client-go/discovery"

	"github.com/apichain/apichain/servers/core/resource"
)

// paramAuthorizer ports the authz.go of kubernetes pkg/registry/admissionregistration/
// {validating,mutating}admissionpolicy{,binding}: whoever writes a policy with a paramKind must
// be allowed to get every object of that kind; whoever writes a binding with a paramRef must be
// allowed to get (or list) the object it names. Members of system:masters are not checked.
type paramAuthorizer struct {
	authorizer authorizer.UnconditionalAuthorizer
	discovery  discovery.DiscoveryInterface
}

// check authorizes obj (old is nil on create) and returns the field a denial is reported on.
type check func(ctx context.Context, a *paramAuthorizer, obj, old runtime.Object) (*field.Path, error)

// wrap runs c after the store's own validation, when that found nothing, as the upstream
// strategies do: a denial becomes a Forbidden field error of the Invalid response.
func (a *paramAuthorizer) wrap(store *genericregistry.Store, c check) {
	store.CreateStrategy = &authzCreate{CreateRules: store.CreateStrategy.(resource.CreateRules), a: a, check: c}
	store.UpdateStrategy = &authzUpdate{UpdateRules: store.UpdateStrategy.(resource.UpdateRules), a: a, check: c}
}

type authzCreate struct {
	resource.CreateRules
	a     *paramAuthorizer
	check check
}

func (s *authzCreate) Validate(ctx context.Context, obj runtime.Object) field.ErrorList {
	errs := s.CreateRules.Validate(ctx, obj)
	if len(errs) == 0 {
		if path, err := s.check(ctx, s.a, obj, nil); err != nil {
			errs = append(errs, field.Forbidden(path, err.Error()))
		}
	}
	return errs
}

type authzUpdate struct {
	resource.UpdateRules
	a     *paramAuthorizer
	check check
}

func (s *authzUpdate) ValidateUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList {
	errs := s.UpdateRules.ValidateUpdate(ctx, obj, old)
	if len(errs) == 0 {
		if path, err := s.check(ctx, s.a, obj, old); err != nil {
			errs = append(errs, field.Forbidden(path, err.Error()))
		}
	}
	return errs
}

// escalationAllowed follows pkg/registry/rbac EscalationAllowed: system:masters may do anything.
func escalationAllowed(ctx context.Context) bool {
	u, ok := genericapirequest.UserFrom(ctx)
	if !ok {
		return false
	}
	for _, group := range u.GetGroups() {
		if group == user.SystemPrivilegedGroup {
			return true
		}
	}
	return false
}

// resolve maps a kind to its resource through discovery (pkg/registry/admissionregistration/resolver).
func (a *paramAuthorizer) resolve(gvk schema.GroupVersionKind) (schema.GroupVersionResource, error) {
	gv := gvk.GroupVersion()
	resources, err := a.discovery.ServerResourcesForGroupVersion(gv.String())
	if err != nil {
		return schema.GroupVersionResource{}, err
	}
	for _, r := range resources.APIResources {
		if r.Kind != gvk.Kind || strings.Contains(r.Name, "/") ||
			(r.Group != "" && r.Group != gvk.Group) || (r.Version != "" && r.Version != gvk.Version) {
			continue
		}
		return gv.WithResource(r.Name), nil
	}
	return schema.GroupVersionResource{}, &meta.NoKindMatchError{GroupKind: gvk.GroupKind(), SearchedVersions: []string{gvk.Version}}
}

// policyParamKind is the check of a policy: "get" on all objects of its paramKind.
func policyParamKind(paramKind func(runtime.Object) *admissionregistrationv1.ParamKind) check {
	path := field.NewPath("spec", "paramKind")
	return func(ctx context.Context, a *paramAuthorizer, obj, old runtime.Object) (*field.Path, error) {
		pk := paramKind(obj)
		if pk == nil {
			return path, nil
		}
		if old != nil {
			if oldPK := paramKind(old); oldPK != nil && *oldPK == *pk {
				return path, nil // identical paramKind to old object
			}
		}
		if a.authorizer == nil || escalationAllowed(ctx) {
			return path, nil
		}
		u, ok := genericapirequest.UserFrom(ctx)
		if !ok {
			return path, fmt.Errorf("cannot identify user to authorize read access to paramKind resources")
		}
		// default to requiring permissions on all group/version/resources
		resource, apiGroup, apiVersion := "*", "*", "*"
		if gv, err := schema.ParseGroupVersion(pk.APIVersion); err == nil {
			apiGroup, apiVersion = gv.Group, gv.Version
			if gvr, err := a.resolve(gv.WithKind(pk.Kind)); err == nil {
				resource = gvr.Resource
			}
		}
		d, _, err := a.authorizer.Authorize(ctx, authorizer.AttributesRecord{
			User: u, Verb: "get", ResourceRequest: true, Name: "*", Namespace: "*",
			APIGroup: apiGroup, APIVersion: apiVersion, Resource: resource,
		})
		if err != nil {
			return path, err
		}
		if d != authorizer.DecisionAllow {
			return path, fmt.Errorf(`user %v must have "get" permission on all objects of the referenced paramKind (kind=%s, apiVersion=%s)`, u, pk.Kind, pk.APIVersion)
		}
		return path, nil
	}
}

// bindingParamRef is the check of a binding: "get" (or "list", without a name) on what its
// paramRef names, of the kind its policy declares. mutating keeps the quirks of
// mutatingadmissionpolicybinding/authz.go (raw authorizer errors, verb and user swapped in the
// denial).
func bindingParamRef(policyParamKind func(ctx context.Context, name string) (*admissionregistrationv1.ParamKind, error),
	binding func(runtime.Object) (string, *admissionregistrationv1.ParamRef), mutating bool) check {
	path := field.NewPath("spec", "paramRef")
	return func(ctx context.Context, a *paramAuthorizer, obj, old runtime.Object) (*field.Path, error) {
		policyName, ref := binding(obj)
		if ref == nil {
			return path, nil
		}
		if old != nil {
			if oldPolicyName, oldRef := binding(old); oldRef != nil && *oldRef == *ref && oldPolicyName == policyName {
				return path, nil // identical paramRef and policy to old object
			}
		}
		if a.authorizer == nil || escalationAllowed(ctx) {
			return path, nil
		}
		u, ok := genericapirequest.UserFrom(ctx)
		if !ok {
			return path, fmt.Errorf("cannot identify user to authorize read access to paramRef object")
		}
		resource, apiGroup, apiVersion := "*", "*", "*"
		var gvParseErr, gvrResolveErr error
		pk, policyErr := policyParamKind(ctx, policyName)
		if policyErr == nil && pk != nil {
			var gv schema.GroupVersion
			if gv, gvParseErr = schema.ParseGroupVersion(pk.APIVersion); gvParseErr == nil {
				apiGroup, apiVersion = gv.Group, gv.Version
				var gvr schema.GroupVersionResource
				if gvr, gvrResolveErr = a.resolve(gv.WithKind(pk.Kind)); gvrResolveErr == nil {
					resource = gvr.Resource
				}
			}
		}
		verb := "get"
		if len(ref.Name) == 0 {
			verb = "list"
		}
		d, _, err := a.authorizer.Authorize(ctx, authorizer.AttributesRecord{
			User: u, Verb: verb, ResourceRequest: true, Name: ref.Name, Namespace: ref.Namespace,
			APIGroup: apiGroup, APIVersion: apiVersion, Resource: resource,
		})
		if err != nil {
			if mutating {
				return path, err
			}
			return path, fmt.Errorf(`failed to authorize request: %w`, err)
		}
		if d == authorizer.DecisionAllow {
			return path, nil
		}
		switch {
		case policyErr != nil:
			return path, fmt.Errorf(`unable to get policy %s to determine minimum required permissions and user %v does not have "%v" permission for all groups, versions and resources`, policyName, u, verb)
		case gvParseErr != nil:
			return path, fmt.Errorf(`unable to parse paramKind %v to determine minimum required permissions and user %v does not have "%v" permission for all groups, versions and resources`, pk, u, verb)
		case gvrResolveErr != nil:
			return path, fmt.Errorf(`unable to resolve paramKind %v to determine minimum required permissions and user %v does not have "%v" permission for all groups, versions and resources`, pk, u, verb)
		case mutating:
			return path, fmt.Errorf(`user %v does not have "%v" permission on the object referenced by paramRef`, verb, u)
		}
		return path, fmt.Errorf(`user %v does not have "%v" permission on the object referenced by paramRef`, u, verb)
	}
}
