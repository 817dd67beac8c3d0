// Package rbac is the chain's RBAC engine, ported from kubernetes v1.37.2: the authorizer
// (plugin/pkg/auth/authorizer/rbac/rbac.go), the rule resolver and the privilege-escalation
// checks (pkg/registry/rbac/validation, pkg/registry/rbac/escalation_check.go), the rule
// coverage comparator (k8s.io/component-helpers/auth/rbac/validation) and the rule matching
// and builder helpers (pkg/apis/rbac/v1/{evaluation_helpers,helpers}.go).
//
// It lives under internal/ because two boxes of the chain use it and neither may import the
// other: servers/chain builds the authorizer at the head of the chain (reading Roles and
// Bindings through the shared informers), and Core's rbac.authorization.k8s.io storage
// (servers/core/registry/rbac) runs the escalation checks on create and update (reading them
// from its own storage, as kube-apiserver's pkg/registry/rbac/rest does). The bootstrap policy
// is in internal/rbac/bootstrappolicy, its reconciliation in internal/rbac/reconciliation.
package rbac
