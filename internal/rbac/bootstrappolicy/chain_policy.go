package bootstrappolicy

// What the chain adds to kube-apiserver's bootstrap policy: the RBAC that metrics-server's own
// manifest (kubernetes-sigs/metrics-server, manifests/base/rbac.yaml as released in
// components.yaml) installs, plus one role pair for what the chain's metrics server does that
// the real one leaves to its manifest: registering itself (its Service and EndpointSlice in
// kube-system, its APIServices).
//
// The manifest binds the ServiceAccount kube-system/metrics-server; the chain's metrics server
// authenticates with a client certificate as the user system:metrics-server (no groups), so
// every binding here names both. Objects carry the bootstrap label and autoupdate annotation,
// so they are reconciled like kube-apiserver's own.

import (
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	rbacv1helpers "github.com/apichain/apichain/internal/rbac"
)

const (
	// MetricsServerUser is the user the chain's metrics server authenticates as.
	MetricsServerUser = "system:metrics-server"
	// metricsServerSA is the ServiceAccount metrics-server's manifest binds.
	metricsServerSA = "metrics-server"
	// MetricsServerRegistrationRole is the chain's ClusterRole (apiservices) and Role in
	// kube-system (Service, EndpointSlices) for the metrics server's self-registration.
	MetricsServerRegistrationRole = "apichain:metrics-server-registration"
)

var metricsServerLabels = map[string]string{"k8s-app": "metrics-server"}

func withLabels(extra map[string]string) metav1.ObjectMeta {
	l := map[string]string{}
	for k, v := range metricsServerLabels {
		l[k] = v
	}
	for k, v := range extra {
		l[k] = v
	}
	return metav1.ObjectMeta{Labels: l}
}

// ChainClusterRoles are the chain's ClusterRoles beyond kube-apiserver's.
func ChainClusterRoles() []rbacv1.ClusterRole {
	reader := rbacv1.ClusterRole{
		ObjectMeta: withLabels(map[string]string{
			"rbac.authorization.k8s.io/aggregate-to-admin": "true",
			"rbac.authorization.k8s.io/aggregate-to-edit":  "true",
			"rbac.authorization.k8s.io/aggregate-to-view":  "true",
		}),
		Rules: []rbacv1.PolicyRule{
			rbacv1helpers.NewRule(Read...).Groups(resMetricsGroup).Resources("pods", "nodes").RuleOrDie(),
		},
	}
	reader.Name = "system:aggregated-metrics-reader"

	server := rbacv1.ClusterRole{
		ObjectMeta: withLabels(nil),
		Rules: []rbacv1.PolicyRule{
			rbacv1helpers.NewRule("get").Groups(legacyGroup).Resources("nodes/metrics").RuleOrDie(),
			rbacv1helpers.NewRule(Read...).Groups(legacyGroup).Resources("pods", "nodes").RuleOrDie(),
		},
	}
	server.Name = "system:metrics-server"

	registration := rbacv1.ClusterRole{
		ObjectMeta: withLabels(nil),
		Rules: []rbacv1.PolicyRule{
			// create cannot be limited by name: the name is in the body, not the URL.
			rbacv1helpers.NewRule("create").Groups("apiregistration.k8s.io").Resources("apiservices").RuleOrDie(),
			rbacv1helpers.NewRule("get", "update", "patch").Groups("apiregistration.k8s.io").Resources("apiservices").
				Names("v1beta1.metrics.k8s.io", "v1.metrics.k8s.io").RuleOrDie(),
		},
	}
	registration.Name = MetricsServerRegistrationRole

	roles := []rbacv1.ClusterRole{reader, server, registration}
	addClusterRoleLabel(roles)
	return roles
}

// ChainClusterRoleBindings are the chain's ClusterRoleBindings beyond kube-apiserver's.
func ChainClusterRoleBindings() []rbacv1.ClusterRoleBinding {
	delegator := rbacv1helpers.NewClusterBinding("system:auth-delegator").SAs("kube-system", metricsServerSA).Users(MetricsServerUser).BindingOrDie()
	delegator.Name = "metrics-server:system:auth-delegator"
	bindings := []rbacv1.ClusterRoleBinding{
		delegator,
		rbacv1helpers.NewClusterBinding("system:metrics-server").SAs("kube-system", metricsServerSA).Users(MetricsServerUser).BindingOrDie(),
		rbacv1helpers.NewClusterBinding(MetricsServerRegistrationRole).Users(MetricsServerUser).BindingOrDie(),
	}
	for i := range bindings {
		bindings[i].Labels = map[string]string{"k8s-app": "metrics-server"}
	}
	addClusterRoleBindingLabel(bindings)
	return bindings
}

// ChainNamespaceRoles are the chain's Roles beyond kube-apiserver's, by namespace.
func ChainNamespaceRoles() map[string][]rbacv1.Role {
	registration := rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Name: MetricsServerRegistrationRole, Namespace: metav1.NamespaceSystem, Labels: map[string]string{"k8s-app": "metrics-server"}},
		Rules: []rbacv1.PolicyRule{
			rbacv1helpers.NewRule("create").Groups(legacyGroup).Resources("services").RuleOrDie(),
			rbacv1helpers.NewRule("get", "update", "patch").Groups(legacyGroup).Resources("services").Names("metrics-server").RuleOrDie(),
			rbacv1helpers.NewRule("get", "list", "watch", "create", "update", "patch", "delete").Groups(discoveryGroup).Resources("endpointslices").RuleOrDie(),
		},
	}
	addDefaultMetadata(&registration)
	return map[string][]rbacv1.Role{metav1.NamespaceSystem: {registration}}
}

// ChainNamespaceRoleBindings are the chain's RoleBindings beyond kube-apiserver's, by namespace.
func ChainNamespaceRoleBindings() map[string][]rbacv1.RoleBinding {
	reader := rbacv1helpers.NewRoleBinding("extension-apiserver-authentication-reader", metav1.NamespaceSystem).SAs(metav1.NamespaceSystem, metricsServerSA).Users(MetricsServerUser).BindingOrDie()
	reader.Name = "metrics-server-auth-reader"
	registration := rbacv1helpers.NewRoleBinding(MetricsServerRegistrationRole, metav1.NamespaceSystem).Users(MetricsServerUser).BindingOrDie()
	bindings := []rbacv1.RoleBinding{reader, registration}
	for i := range bindings {
		bindings[i].Labels = map[string]string{"k8s-app": "metrics-server"}
		addDefaultMetadata(&bindings[i])
	}
	return map[string][]rbacv1.RoleBinding{metav1.NamespaceSystem: bindings}
}

// Policy is everything the chain bootstraps, as kube-apiserver's pkg/registry/rbac/rest
// PolicyData holds it.
type Policy struct {
	ClusterRoles        []rbacv1.ClusterRole
	ClusterRoleBindings []rbacv1.ClusterRoleBinding
	Roles               map[string][]rbacv1.Role
	RoleBindings        map[string][]rbacv1.RoleBinding
	// ClusterRolesToAggregate maps a legacy ClusterRole name to the one that replaced it.
	ClusterRolesToAggregate map[string]string
	// ClusterRoleBindingsToSplit maps a ClusterRoleBinding to a template for its split-off part.
	ClusterRoleBindingsToSplit map[string]rbacv1.ClusterRoleBinding
}

// Default is kube-apiserver v1.37.2's bootstrap policy (cluster, controller and namespace roles
// and bindings) followed by the chain's additions.
func Default() Policy {
	p := Policy{
		ClusterRoles:               append(append(ClusterRoles(), ControllerRoles()...), ChainClusterRoles()...),
		ClusterRoleBindings:        append(append(ClusterRoleBindings(), ControllerRoleBindings()...), ChainClusterRoleBindings()...),
		Roles:                      NamespaceRoles(),
		RoleBindings:               NamespaceRoleBindings(),
		ClusterRolesToAggregate:    ClusterRolesToAggregate(),
		ClusterRoleBindingsToSplit: ClusterRoleBindingsToSplit(),
	}
	for ns, roles := range ChainNamespaceRoles() {
		p.Roles[ns] = append(p.Roles[ns], roles...)
	}
	for ns, bindings := range ChainNamespaceRoleBindings() {
		p.RoleBindings[ns] = append(p.RoleBindings[ns], bindings...)
	}
	return p
}
