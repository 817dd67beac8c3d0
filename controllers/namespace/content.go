package namespace

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/client-go/discovery"
)

// pass is what one pass over a namespace's content did and found.
type pass struct {
	discoveryErr error          // some group versions could not be discovered
	parseErrs    []error        // group versions discovery named but that do not parse
	deleteErrs   []error        // resources whose content could not be deleted or listed
	remaining    map[string]int // "resource.group" → objects still there
	finalizers   map[string]int // finalizer → objects still there holding it
}

// namespacedResource is a resource to empty, and whether it can be emptied in one request.
type namespacedResource struct {
	gvr        schema.GroupVersionResource
	collection bool
}

// deleteContent deletes everything in namespace ns that the chain serves, pods first.
func (c *Controller) deleteContent(ctx context.Context, ns string) *pass {
	p := &pass{remaining: map[string]int{}, finalizers: map[string]int{}}
	lists, err := c.discovery.ServerPreferredNamespacedResources()
	if err != nil {
		p.discoveryErr = err
		if !discovery.IsGroupDiscoveryFailedError(err) {
			return p // nothing discovered at all
		}
	}
	var resources []namespacedResource
	for _, list := range lists {
		gv, err := schema.ParseGroupVersion(list.GroupVersion)
		if err != nil {
			p.parseErrs = append(p.parseErrs, err)
			continue
		}
		for _, r := range list.APIResources {
			if strings.Contains(r.Name, "/") || !slices.Contains(r.Verbs, "list") || !slices.Contains(r.Verbs, "delete") {
				continue // a subresource, or something that cannot be emptied (bindings, tokens...)
			}
			resources = append(resources, namespacedResource{gv.WithResource(r.Name), slices.Contains(r.Verbs, "deletecollection")})
		}
	}

	pods := corev1.SchemeGroupVersion.WithResource("pods")
	if i := slices.IndexFunc(resources, func(r namespacedResource) bool { return r.gvr == pods }); i >= 0 {
		c.empty(ctx, ns, resources[i], p)
		if len(p.remaining) > 0 || len(p.deleteErrs) > 0 {
			return p // the rest waits until the pods are gone
		}
		resources = slices.Delete(resources, i, i+1)
	}
	for _, r := range resources {
		c.empty(ctx, ns, r, p)
	}
	return p
}

// empty deletes what resource r holds in namespace ns, then records in p what is left.
func (c *Controller) empty(ctx context.Context, ns string, r namespacedResource, p *pass) {
	client := c.metadata.Resource(r.gvr).Namespace(ns)
	background := metav1.DeletePropagationBackground
	opts := metav1.DeleteOptions{PropagationPolicy: &background}
	failed := func(what string, err error) {
		p.deleteErrs = append(p.deleteErrs, fmt.Errorf("%s %s: %w", what, r.gvr.GroupResource(), err))
	}
	if r.collection {
		if err := client.DeleteCollection(ctx, opts, metav1.ListOptions{}); err != nil && !apierrors.IsNotFound(err) {
			failed("deleting", err)
			return
		}
	} else {
		list, err := client.List(ctx, metav1.ListOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			failed("listing", err)
			return
		}
		for _, item := range list.Items {
			if item.DeletionTimestamp != nil {
				continue
			}
			if err := client.Delete(ctx, item.Name, opts); err != nil && !apierrors.IsNotFound(err) {
				failed("deleting", err)
				return
			}
		}
	}

	left, err := client.List(ctx, metav1.ListOptions{})
	if apierrors.IsNotFound(err) {
		return // no longer served: nothing left of it
	}
	if err != nil {
		failed("listing", err)
		return
	}
	if len(left.Items) > 0 {
		p.remaining[r.gvr.Resource+"."+r.gvr.Group] += len(left.Items)
	}
	for _, item := range left.Items {
		for _, f := range item.Finalizers {
			p.finalizers[f]++
		}
	}
}

// err is why the namespace cannot be finalized even if nothing seems left: what could not be
// discovered or deleted may still be there.
func (p *pass) err() error {
	errs := append(slices.Clone(p.parseErrs), p.deleteErrs...)
	if p.discoveryErr != nil {
		errs = append(errs, p.discoveryErr)
	}
	return utilerrors.NewAggregate(errs)
}

// conditions are the namespace conditions kube-controller-manager reports: each True, with
// what went wrong, or False, with its reason for being fine.
func (p *pass) conditions() []corev1.NamespaceCondition {
	failing := func(t corev1.NamespaceConditionType, reason, message string) corev1.NamespaceCondition {
		return corev1.NamespaceCondition{Type: t, Status: corev1.ConditionTrue, Reason: reason, Message: message}
	}
	fine := func(t corev1.NamespaceConditionType, reason, message string) corev1.NamespaceCondition {
		return corev1.NamespaceCondition{Type: t, Status: corev1.ConditionFalse, Reason: reason, Message: message}
	}
	var out []corev1.NamespaceCondition

	var groups *discovery.ErrGroupDiscoveryFailed
	switch {
	case errors.As(p.discoveryErr, &groups):
		out = append(out, failing(corev1.NamespaceDeletionDiscoveryFailure, "DiscoveryFailed",
			fmt.Sprintf("Discovery failed for some groups, %d failing: %v", len(groups.Groups), p.discoveryErr)))
	case p.discoveryErr != nil:
		out = append(out, failing(corev1.NamespaceDeletionDiscoveryFailure, "DiscoveryFailed", p.discoveryErr.Error()))
	default:
		out = append(out, fine(corev1.NamespaceDeletionDiscoveryFailure, "ResourcesDiscovered", "All resources successfully discovered"))
	}

	if len(p.parseErrs) > 0 {
		out = append(out, failing(corev1.NamespaceDeletionGVParsingFailure, "GroupVersionParsingFailed", utilerrors.NewAggregate(p.parseErrs).Error()))
	} else {
		out = append(out, fine(corev1.NamespaceDeletionGVParsingFailure, "ParsedGroupVersions", "All legacy kube types successfully parsed"))
	}

	if len(p.deleteErrs) > 0 {
		out = append(out, failing(corev1.NamespaceDeletionContentFailure, "ContentDeletionFailed",
			fmt.Sprintf("Failed to delete all resource types, %d remaining: %v", len(p.deleteErrs), utilerrors.NewAggregate(p.deleteErrs))))
	} else {
		out = append(out, fine(corev1.NamespaceDeletionContentFailure, "ContentDeleted", "All content successfully deleted, may be waiting on finalization"))
	}

	if len(p.remaining) > 0 {
		out = append(out, failing(corev1.NamespaceContentRemaining, "SomeResourcesRemain",
			"Some resources are remaining: "+counted(p.remaining, "%s has %d resource instances")))
	} else {
		out = append(out, fine(corev1.NamespaceContentRemaining, "ContentRemoved", "All content successfully removed"))
	}

	if len(p.finalizers) > 0 {
		out = append(out, failing(corev1.NamespaceFinalizersRemaining, "SomeFinalizersRemain",
			"Some content in the namespace has finalizers remaining: "+counted(p.finalizers, "%s in %d resource instances")))
	} else {
		out = append(out, fine(corev1.NamespaceFinalizersRemaining, "ContentHasNoFinalizers", "All content-preserving finalizers finished"))
	}
	return out
}

// counted formats every entry of counts with format, in the order of their names.
func counted(counts map[string]int, format string) string {
	var parts []string
	for name, n := range counts {
		parts = append(parts, fmt.Sprintf(format, name, n))
	}
	slices.Sort(parts)
	return strings.Join(parts, ", ")
}
