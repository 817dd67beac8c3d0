// Package bootstrappolicy is the RBAC the chain creates at every start, as data:
//
//   - kube-apiserver-v1.37.2.json: every ClusterRole, ClusterRoleBinding, Role and RoleBinding a
//     real kube-apiserver v1.37.2 creates on a fresh etcd (cluster-admin, admin/edit/view, the
//     system:* roles of the scheduler, controller manager, nodes and each controller, ...),
//     observed, server-set metadata removed. admin, edit and view have no
//     rules there: the clusterrole-aggregation controller fills them.
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

	rbacv1 "k8s.io/api/rbac/v1"
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
	if err != nil {
		return p, err
	}
	return p, p.add("apichain.yaml", chainPolicy)
}

// add appends the objects of a List in YAML or JSON. Anything but the four kinds, or a field
// they do not have, is an error.
func (p *Policy) add(file string, data []byte) error {
	var list struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := yaml.Unmarshal(data, &list); err != nil {
		return fmt.Errorf("reading %s: %w", file, err)
	}
	for i, raw := range list.Items {
		var kind struct{ Kind string }
		err := json.Unmarshal(raw, &kind)
		if err == nil {
			switch kind.Kind {
			case "ClusterRole":
				err = decodeInto(raw, &p.ClusterRoles)
			case "ClusterRoleBinding":
				err = decodeInto(raw, &p.ClusterRoleBindings)
			case "Role":
				err = decodeInto(raw, &p.Roles)
			case "RoleBinding":
				err = decodeInto(raw, &p.RoleBindings)
			default:
				err = fmt.Errorf("unexpected kind %q", kind.Kind)
			}
		}
		if err != nil {
			return fmt.Errorf("reading %s, item %d: %w", file, i, err)
		}
	}
	return nil
}

func decodeInto[T any](raw json.RawMessage, into *[]T) error {
	var obj T
	d := json.NewDecoder(bytes.NewReader(raw))
	d.DisallowUnknownFields()
	if err := d.Decode(&obj); err != nil {
		return err
	}
	*into = append(*into, obj)
	return nil
}
