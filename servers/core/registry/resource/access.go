package resource

// What a write of a claim needs from the cluster beyond the object itself, as kube-apiserver's
// pkg/registry/resource/utils.go checks it:
//   - admin access to devices (a request or an allocation result with adminAccess: true) only
//     in a namespace labelled resource.kubernetes.io/admin-access: "true";
//   - whoever changes a claim's allocation or reservedFor may update the synthetic subresource
//     resourceclaims/binding (what a scheduler does);
//   - whoever changes a claim's device status may update resourceclaims/driver for each driver
//     whose entries change: "associated-node:<verb>" for a service account of the node the
//     devices are on, else "arbitrary-node:<verb>" (DRAResourceClaimGranularStatusAuthorization,
//     beta and on in v1.37).

import (
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/authentication/serviceaccount"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/endpoints/filters"
	"k8s.io/apiserver/pkg/endpoints/handlers/responsewriters"
)

// NamespaceGetter reads a namespace, as the claim strategies of kube-apiserver read it through
// their loopback client.
type NamespaceGetter func(ctx context.Context, name string) (*corev1.Namespace, error)

// adminAccess checks the first request at path that asks for admin access, if any, against its
// namespace's label.
func (g NamespaceGetter) adminAccess(ctx context.Context, namespace string, path *field.Path) field.ErrorList {
	if path == nil {
		return nil
	}
	ns, err := g(ctx, namespace)
	if err != nil {
		return field.ErrorList{field.InternalError(path, fmt.Errorf("could not retrieve namespace to verify admin access: %w", err))}
	}
	if ns.Labels[resourcev1.DRAAdminNamespaceLabelKey] != "true" {
		return field.ErrorList{field.Forbidden(path, fmt.Sprintf("admin access to devices requires the `%s: true` label on the containing namespace", resourcev1.DRAAdminNamespaceLabelKey))}
	}
	return nil
}

// adminRequest is the path of the first request of a claim spec that asks for admin access
// (only an exact request can), or nil.
func adminRequest(spec *resourcev1.ResourceClaimSpec) *field.Path {
	for i, r := range spec.Devices.Requests {
		if r.Exactly != nil && r.Exactly.AdminAccess != nil && *r.Exactly.AdminAccess {
			return field.NewPath("spec", "devices", "requests").Index(i).Child("adminAccess")
		}
	}
	return nil
}

// adminResult is the path of the first result of an allocation that grants admin access, or nil.
func adminResult(a *resourcev1.AllocationResult) *field.Path {
	if a == nil {
		return nil
	}
	for i, r := range a.Devices.Results {
		if r.AdminAccess != nil && *r.AdminAccess {
			return field.NewPath("status", "allocation", "devices", "results").Index(i).Child("adminAccess")
		}
	}
	return nil
}

// statusAccess checks that the writer of a claim's status may make the changes it makes.
type statusAccess struct {
	authorizer authorizer.Authorizer
}

// binding: changing the allocation or the users of a claim is binding it.
func (a statusAccess) binding(ctx context.Context, status, old *resourcev1.ResourceClaimStatus) field.ErrorList {
	if equality.Semantic.DeepEqual(status.Allocation, old.Allocation) && equality.Semantic.DeepEqual(status.ReservedFor, old.ReservedFor) {
		return nil
	}
	path := field.NewPath("status", "allocation")
	request, err := filters.GetAuthorizerAttributes(ctx)
	if err != nil {
		return field.ErrorList{field.InternalError(path, fmt.Errorf("cannot build authorizer attributes: %w", err))}
	}
	// Cluster-wide: the scheduler binds claims of every namespace.
	attrs := synthetic{Attributes: request, verb: request.GetVerb(), subresource: resourcev1.SubresourceBinding}
	if err := a.allowed(ctx, attrs); err != nil {
		return field.ErrorList{field.Forbidden(path, fmt.Sprintf(`changing status.allocation or status.reservedFor requires resource="resourceclaims/binding", verb="%s" permission: %s`, attrs.verb, err))}
	}
	return nil
}

// devices: changing what a driver reports about its devices is that driver's business.
func (a statusAccess) devices(ctx context.Context, status, old *resourcev1.ResourceClaimStatus) field.ErrorList {
	drivers := changedDrivers(status.Devices, old.Devices)
	if len(drivers) == 0 || status.Allocation == nil {
		return nil
	}
	path := field.NewPath("status", "devices")
	request, err := filters.GetAuthorizerAttributes(ctx)
	if err != nil {
		return field.ErrorList{field.InternalError(path, fmt.Errorf("cannot build authorizer attributes: %w", err))}
	}
	verbs := []string{resourcev1.VerbPrefixArbitraryNode + request.GetVerb()}
	if node := allocatedNode(status.Allocation); node != "" && onNode(request, node) {
		verbs = append([]string{resourcev1.VerbPrefixAssociatedNode + request.GetVerb()}, verbs...)
	}
	var errs field.ErrorList
	for _, driver := range drivers {
		var first error
		for _, verb := range verbs {
			err := a.allowed(ctx, synthetic{Attributes: request, verb: verb, subresource: resourcev1.SubresourceDriver,
				namespace: request.GetNamespace(), name: driver})
			if err == nil {
				first = nil
				break
			}
			if first == nil {
				first = err
			}
		}
		if first != nil {
			errs = append(errs, field.Forbidden(path, fmt.Sprintf(`changing status.devices requires resource="resourceclaims/driver", verb="%s" permission: %s`, verbs, first)))
		}
	}
	return errs
}

func (a statusAccess) allowed(ctx context.Context, attrs synthetic) error {
	decision, reason, err := a.authorizer.Authorize(ctx, attrs)
	if decision == authorizer.DecisionAllow {
		return nil
	}
	switch {
	case err != nil && reason != "":
		reason = fmt.Sprintf("%v: %s", err, reason)
	case err != nil:
		reason = err.Error()
	}
	return responsewriters.ForbiddenStatusError(attrs, reason)
}

// synthetic are the attributes of the request, but for the verb, subresource, namespace and
// name that the check is about.
type synthetic struct {
	authorizer.Attributes
	verb, subresource, namespace, name string
}

func (s synthetic) GetVerb() string        { return s.verb }
func (s synthetic) GetSubresource() string { return s.subresource }
func (s synthetic) GetNamespace() string   { return s.namespace }
func (s synthetic) GetName() string        { return s.name }

// changedDrivers are the drivers, sorted, whose device status entries were added, removed or
// changed.
func changedDrivers(devices, old []resourcev1.AllocatedDeviceStatus) []string {
	key := func(d resourcev1.AllocatedDeviceStatus) string {
		share := ""
		if d.ShareID != nil {
			share = *d.ShareID
		}
		return d.Driver + "/" + d.Pool + "/" + d.Device + "/" + share
	}
	before := map[string]resourcev1.AllocatedDeviceStatus{}
	for _, d := range old {
		before[key(d)] = d
	}
	var drivers []string
	for _, d := range devices {
		was, ok := before[key(d)]
		delete(before, key(d))
		if !ok || !equality.Semantic.DeepEqual(was, d) {
			drivers = append(drivers, d.Driver)
		}
	}
	for _, d := range before {
		drivers = append(drivers, d.Driver)
	}
	slices.Sort(drivers)
	return slices.Compact(drivers)
}

// allocatedNode is the one node an allocation's devices are on, when its node selector names
// exactly one node by metadata.name.
func allocatedNode(a *resourcev1.AllocationResult) string {
	if a.NodeSelector == nil || len(a.NodeSelector.NodeSelectorTerms) != 1 {
		return ""
	}
	term := a.NodeSelector.NodeSelectorTerms[0]
	if len(term.MatchExpressions) != 0 || len(term.MatchFields) != 1 {
		return ""
	}
	f := term.MatchFields[0]
	if f.Key != metav1.ObjectNameField || f.Operator != corev1.NodeSelectorOpIn || len(f.Values) != 1 {
		return ""
	}
	return f.Values[0]
}

// onNode: the request comes from a service account whose token is bound to node (a pod's token
// names the node the pod runs on).
func onNode(request authorizer.Attributes, node string) bool {
	u := request.GetUser()
	if u == nil {
		return false
	}
	if _, _, err := serviceaccount.SplitUsername(u.GetName()); err != nil {
		return false
	}
	nodes := u.GetExtra()[serviceaccount.NodeNameKey]
	return len(nodes) == 1 && nodes[0] == node
}
