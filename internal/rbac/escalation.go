package rbac

// Privilege-escalation prevention, ported from kubernetes v1.37.2
// pkg/registry/rbac/validation/rule.go (ConfirmNoEscalation), pkg/registry/rbac/escalation_check.go
// (EscalationAllowed, RoleEscalationAuthorized, BindingAuthorized) and pkg/registry/rbac/helpers.go
// (IsOnlyMutatingGCFields).

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/klog/v2"
)

// ConfirmNoEscalation returns an error unless the user of ctx holds, in the namespace of ctx,
// every permission of rules.
func ConfirmNoEscalation(ctx context.Context, ruleResolver AuthorizationRuleResolver, rules []rbacv1.PolicyRule) error {
	ruleResolutionErrors := []error{}

	user, ok := genericapirequest.UserFrom(ctx)
	if !ok {
		return fmt.Errorf("no user on context")
	}
	namespace, _ := genericapirequest.NamespaceFrom(ctx)

	ownerRules, err := ruleResolver.RulesFor(ctx, user, namespace)
	if err != nil {
		// The list may be incomplete but what it has holds: go on, and mention the errors.
		klog.V(1).Infof("non-fatal error getting local rules for %v: %v", user, err)
		ruleResolutionErrors = append(ruleResolutionErrors, err)
	}

	ownerRightsCover, missingRights := Covers(ownerRules, rules)
	if ownerRightsCover {
		return nil
	}
	compactMissingRights := missingRights
	if compact, err := CompactRules(missingRights); err == nil {
		compactMissingRights = compact
	}
	missingDescriptions := sets.NewString()
	for _, missing := range compactMissingRights {
		missingDescriptions.Insert(CompactString(missing))
	}
	msg := fmt.Sprintf("user %q (groups=%q) is attempting to grant RBAC permissions not currently held:\n%s", user.GetName(), user.GetGroups(), strings.Join(missingDescriptions.List(), "\n"))
	if len(ruleResolutionErrors) > 0 {
		msg = msg + fmt.Sprintf("; resolution errors: %v", ruleResolutionErrors)
	}
	return errors.New(msg)
}

// EscalationAllowed reports whether the user of ctx is in system:masters, which the API server
// uses for its own privileged loopback connections and may therefore do anything.
func EscalationAllowed(ctx context.Context) bool {
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

var roleResources = map[schema.GroupResource]bool{
	{Group: rbacv1.GroupName, Resource: "clusterroles"}: true,
	{Group: rbacv1.GroupName, Resource: "roles"}:        true,
}

// RoleEscalationAuthorized reports whether the user of ctx may "escalate" the role of the request.
func RoleEscalationAuthorized(ctx context.Context, a authorizer.UnconditionalAuthorizer) bool {
	if a == nil {
		return false
	}
	user, ok := genericapirequest.UserFrom(ctx)
	if !ok {
		return false
	}
	requestInfo, ok := genericapirequest.RequestInfoFrom(ctx)
	if !ok || !requestInfo.IsResourceRequest {
		return false
	}
	requestResource := schema.GroupResource{Group: requestInfo.APIGroup, Resource: requestInfo.Resource}
	if !roleResources[requestResource] {
		return false
	}
	attrs := authorizer.AttributesRecord{
		User:            user,
		Verb:            "escalate",
		APIGroup:        requestInfo.APIGroup,
		APIVersion:      "*",
		Resource:        requestInfo.Resource,
		Name:            requestInfo.Name,
		Namespace:       requestInfo.Namespace,
		ResourceRequest: true,
	}
	decision, _, err := a.Authorize(ctx, attrs)
	if err != nil {
		utilruntime.HandleError(fmt.Errorf("error authorizing user %#v to escalate %#v named %q in namespace %q: %v",
			user, requestResource, requestInfo.Name, requestInfo.Namespace, err))
	}
	return decision == authorizer.DecisionAllow
}

// BindingAuthorized reports whether the user of ctx may "bind" the role roleRef names, in
// bindingNamespace (empty for a ClusterRoleBinding).
func BindingAuthorized(ctx context.Context, roleRef rbacv1.RoleRef, bindingNamespace string, a authorizer.UnconditionalAuthorizer) bool {
	if a == nil {
		return false
	}
	user, ok := genericapirequest.UserFrom(ctx)
	if !ok {
		return false
	}
	attrs := authorizer.AttributesRecord{
		User: user,
		Verb: "bind",
		// The namespace of the binding: delegation can allow binding particular cluster roles
		// in particular namespaces.
		Namespace:       bindingNamespace,
		ResourceRequest: true,
	}
	switch roleRef.Kind {
	case "ClusterRole":
		attrs.APIGroup, attrs.APIVersion, attrs.Resource, attrs.Name = roleRef.APIGroup, "*", "clusterroles", roleRef.Name
	case "Role":
		attrs.APIGroup, attrs.APIVersion, attrs.Resource, attrs.Name = roleRef.APIGroup, "*", "roles", roleRef.Name
	default:
		return false
	}
	decision, _, err := a.Authorize(ctx, attrs)
	if err != nil {
		utilruntime.HandleError(fmt.Errorf("error authorizing user %#v to bind %#v in namespace %s: %v", user, roleRef, bindingNamespace, err))
	}
	return decision == authorizer.DecisionAllow
}

// IsOnlyMutatingGCFields reports whether obj differs from old only in what the garbage
// collector changes (owner references, finalizers), which needs no escalation check.
func IsOnlyMutatingGCFields(obj, old runtime.Object) bool {
	if old == nil || reflect.ValueOf(old).IsNil() {
		return false
	}
	copied := obj.DeepCopyObject()
	copiedMeta, err := meta.Accessor(copied)
	if err != nil {
		return false
	}
	oldMeta, err := meta.Accessor(old)
	if err != nil {
		return false
	}
	copiedMeta.SetOwnerReferences(oldMeta.GetOwnerReferences())
	copiedMeta.SetFinalizers(oldMeta.GetFinalizers())
	copiedMeta.SetSelfLink(oldMeta.GetSelfLink())
	copiedMeta.SetManagedFields(oldMeta.GetManagedFields())
	return equality.Semantic.DeepEqual(copied, old)
}
