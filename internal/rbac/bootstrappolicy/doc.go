// Package bootstrappolicy is the RBAC policy the chain creates at start: kube-apiserver
// v1.37.2's bootstrap roles and bindings (cluster-admin, admin/edit/view and their aggregation,
// system:discovery, system:basic-user, system:public-info-viewer, system:node, the
// kube-scheduler, kube-controller-manager and system:controller:* roles, ...), ported from
// kubernetes plugin/pkg/auth/authorizer/rbac/bootstrappolicy, followed by what the chain adds
// for its metrics server (chain_policy.go). Core's post-start hook "rbac/bootstrap-roles"
// (servers/core/registry/rbac) reconciles Default() into storage.
package bootstrappolicy
