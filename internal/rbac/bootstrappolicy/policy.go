// Package bootstrappolicy is the RBAC the chain creates at every start, as data:
//
//   - kube-apiserver-v1.37.2.json: every ClusterRole, ClusterRoleBinding, Role and RoleBinding a
//     real kube-apiserver v1.37.2 creates on a fresh etcd (cluster-admin, admin/edit/view, the
//     system:* roles of the scheduler, controller manager, nodes and each controller, ...),
//     observed, server-set metadata removed. admin, edit and view have no rules there: the
//     clusterrole-aggregation controller fills them.
//   - apichain.yaml: the chain's own, for its metrics server.
//
// Core's post-start hook "rbac/bootstrap-roles" (servers/core/registry/rbac) reconciles Default()
// into storage with k8s.io/component-helpers' reconciliation.
package bootstrappolicy

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// MetricsServerUser is the user the chain's metrics server authenticates as; apichain.yaml
// grants it what it needs.
const MetricsServerUser = "system:metrics-server"

var (
	//go:embed kube-apiserver-v1.37.2.json
	kubeAPIServerPolicy []byte
	//go:embed apichain.yaml
	chainPolicy []byte
)

// Policy is a set of RBAC objects.
type Policy struct {
	ClusterRoles        []rbacv1.ClusterRole
	ClusterRoleBindings []rbacv1.ClusterRoleBinding
	Roles               []rbacv1.Role
	RoleBindings        []rbacv1.RoleBinding
}

// KubeAPIServer is kube-apiserver v1.37.2's bootstrap policy.
func KubeAPIServer() (Policy, error) {
	var p Policy
	err := p.add("kube-apiserver-v1.37.2.json", kubeAPIServerPolicy)
	return p, err
}

// Default is what the chain creates: kube-apiserver's policy, then the chain's own.
func Default() (Policy, error) {
	p, err := KubeAPIServer()
	if err == nil {
		err = p.add("apichain.yaml", chainPolicy)
	}
	return p, err
}

// add appends the objects of a List in JSON or (for a .yaml file) YAML. Anything but the four
// kinds, a field none of them has, or a field of another kind is an error: a typo must not
// make a role that silently grants less.
func (p *Policy) add(file string, data []byte) error {
	if strings.HasSuffix(file, ".yaml") {
		var err error
		if data, err = yaml.YAMLToJSON(data); err != nil {
			return fmt.Errorf("reading %s: %w", file, err)
		}
	}
	// One pass over the data (it is read at every start): each item into the union of the four
	// kinds' fields.
	var list struct {
		APIVersion, Kind string
		Items            []struct {
			APIVersion, Kind string
			Metadata         metav1.ObjectMeta
			Rules            []rbacv1.PolicyRule
			AggregationRule  *rbacv1.AggregationRule
			RoleRef          *rbacv1.RoleRef
			Subjects         []rbacv1.Subject
		}
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	if err := d.Decode(&list); err != nil {
		return fmt.Errorf("reading %s: %w", file, err)
	}
	for i, o := range list.Items {
		isRole, isBinding := o.RoleRef == nil && o.Subjects == nil, o.Rules == nil && o.AggregationRule == nil && o.RoleRef != nil
		switch {
		case o.Kind == "ClusterRole" && isRole:
			p.ClusterRoles = append(p.ClusterRoles, rbacv1.ClusterRole{ObjectMeta: o.Metadata, Rules: o.Rules, AggregationRule: o.AggregationRule})
		case o.Kind == "Role" && isRole && o.AggregationRule == nil:
			p.Roles = append(p.Roles, rbacv1.Role{ObjectMeta: o.Metadata, Rules: o.Rules})
		case o.Kind == "ClusterRoleBinding" && isBinding:
			p.ClusterRoleBindings = append(p.ClusterRoleBindings, rbacv1.ClusterRoleBinding{ObjectMeta: o.Metadata, RoleRef: *o.RoleRef, Subjects: o.Subjects})
		case o.Kind == "RoleBinding" && isBinding:
			p.RoleBindings = append(p.RoleBindings, rbacv1.RoleBinding{ObjectMeta: o.Metadata, RoleRef: *o.RoleRef, Subjects: o.Subjects})
		default:
			return fmt.Errorf("reading %s, item %d: not a ClusterRole, Role, ClusterRoleBinding or RoleBinding (kind %q, or fields of another kind)", file, i, o.Kind)
		}
	}
	return nil
}
