package rbac

// The "rbac/bootstrap-roles" post-start hook, following kubernetes
// pkg/registry/rbac/rest/storage_rbac.go (PostStartHook, EnsureRBACPolicy): the bootstrap
// policy (internal/rbac/bootstrappolicy) is reconciled into storage at every start, adding
// what is missing and keeping what users added; objects annotated
// rbac.authorization.kubernetes.io/autoupdate=false are left alone.

import (
	"context"
	"fmt"
	"sync"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/client-go/kubernetes"
	rbacv1client "k8s.io/client-go/kubernetes/typed/rbac/v1"
	"k8s.io/client-go/util/retry"
	"k8s.io/klog/v2"

	"github.com/apichain/apichain/internal/rbac/bootstrappolicy"
	"github.com/apichain/apichain/internal/rbac/reconciliation"
)

// PostStartHookName is kube-apiserver's name for the hook.
const PostStartHookName = "rbac/bootstrap-roles"

// EnsurePolicy is the post-start hook: it reconciles bootstrappolicy.Default() through the
// loopback client, retrying for up to 30 s; like kube-apiserver, the server fails to start if
// it cannot.
func EnsurePolicy(hc genericapiserver.PostStartHookContext) error {
	client, err := kubernetes.NewForConfig(hc.LoopbackClientConfig)
	if err != nil {
		return fmt.Errorf("unable to initialize client set: %w", err)
	}
	return ensure(hc, client, bootstrappolicy.Default())
}

func ensure(ctx context.Context, client kubernetes.Interface, p bootstrappolicy.Policy) error {
	var lastErr error
	err := wait.PollUntilContextTimeout(ctx, time.Second, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		done, err := Reconcile(ctx, p, client)
		lastErr = err
		return done, nil
	})
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		// The server is stopping: nothing failed (a failed hook would end the process).
		return nil
	default:
		return fmt.Errorf("unable to initialize roles: %v (last error: %v)", err, lastErr)
	}
}

func isConflictOrServiceUnavailable(err error) bool {
	return apierrors.IsConflict(err) || apierrors.IsServiceUnavailable(err)
}

// Reconcile brings the stored RBAC objects up to p once. It reports done=false (and the last
// error) when something failed and should be retried; it tries every object either way.
func Reconcile(ctx context.Context, p bootstrappolicy.Policy, client kubernetes.Interface) (done bool, err error) {
	// What exists now (this also makes sure storage answers before reconciling): each object's
	// first Get, priming's included, is answered from these lists.
	existingClusterRoles, existingRoles, existingClusterRoleBindings, existingRoleBindings, err := list(ctx, client)
	if err != nil {
		return false, err
	}
	clusterRoles := listedRuleOwners{reconciliation.ClusterRoleModifier{Client: client.RbacV1().ClusterRoles()}, existingClusterRoles}
	clusterRoleBindings := listedRoleBindings{reconciliation.ClusterRoleBindingClientAdapter{Client: client.RbacV1().ClusterRoleBindings()}, existingClusterRoleBindings}
	if err := primeAggregatedClusterRoles(ctx, p.ClusterRolesToAggregate, clusterRoles.getClusterRole, client.RbacV1()); err != nil {
		return false, fmt.Errorf("unable to prime aggregated clusterroles: %w", err)
	}
	if err := primeSplitClusterRoleBindings(ctx, p.ClusterRoleBindingsToSplit, clusterRoleBindings.getClusterRoleBinding, client.RbacV1()); err != nil {
		return false, fmt.Errorf("unable to prime split ClusterRoleBindings: %w", err)
	}

	// The objects are independent of each other: reconcile them a few at a time rather than one
	// by one (kube-apiserver's hook goes one by one; on a fresh etcd that is about 280 requests in
	// a row, the longest wait of the chain's start).
	var (
		mu     sync.Mutex
		failed error
		wg     sync.WaitGroup
		slots  = make(chan struct{}, reconcileWorkers)
	)
	report := func(what string, reconcile func() error) {
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer func() { <-slots; wg.Done() }()
			if e := reconcile(); e != nil {
				// Do not stop: create as much as possible, then retry.
				utilruntime.HandleError(fmt.Errorf("unable to reconcile %s: %w", what, e))
				mu.Lock()
				failed = e
				mu.Unlock()
			}
		}()
	}
	for i := range p.ClusterRoles {
		role := &p.ClusterRoles[i]
		opts := reconciliation.ReconcileRoleOptions{
			Role:    reconciliation.ClusterRoleRuleOwner{ClusterRole: role.DeepCopy()},
			Client:  clusterRoles,
			Confirm: true,
		}
		report("clusterrole."+rbacv1.GroupName+"/"+role.Name, func() error {
			return retry.OnError(retry.DefaultBackoff, isConflictOrServiceUnavailable, func() error {
				result, err := opts.Run(ctx)
				if err == nil {
					logRoleResult("clusterrole", "", role.Name, result)
				}
				return err
			})
		})
	}
	for i := range p.ClusterRoleBindings {
		binding := &p.ClusterRoleBindings[i]
		opts := reconciliation.ReconcileRoleBindingOptions{
			RoleBinding: reconciliation.ClusterRoleBindingAdapter{ClusterRoleBinding: binding.DeepCopy()},
			Client:      clusterRoleBindings,
			Confirm:     true,
		}
		report("clusterrolebinding."+rbacv1.GroupName+"/"+binding.Name, func() error {
			return retry.OnError(retry.DefaultBackoff, isConflictOrServiceUnavailable, func() error {
				result, err := opts.Run(ctx)
				if err == nil {
					logBindingResult("clusterrolebinding", "", binding.Name, result)
				}
				return err
			})
		})
	}
	for namespace, roles := range p.Roles {
		for i := range roles {
			role := &roles[i]
			opts := reconciliation.ReconcileRoleOptions{
				Role:    reconciliation.RoleRuleOwner{Role: role.DeepCopy()},
				Client:  listedRuleOwners{reconciliation.RoleModifier{Client: client.RbacV1(), NamespaceClient: client.CoreV1().Namespaces()}, existingRoles},
				Confirm: true,
			}
			report("role."+rbacv1.GroupName+"/"+role.Name+" in "+namespace, func() error {
				return retry.OnError(retry.DefaultBackoff, isConflictOrServiceUnavailable, func() error {
					result, err := opts.Run(ctx)
					if err == nil {
						logRoleResult("role", namespace, role.Name, result)
					}
					return err
				})
			})
		}
	}
	for namespace, bindings := range p.RoleBindings {
		for i := range bindings {
			binding := &bindings[i]
			opts := reconciliation.ReconcileRoleBindingOptions{
				RoleBinding: reconciliation.RoleBindingAdapter{RoleBinding: binding.DeepCopy()},
				Client:      listedRoleBindings{reconciliation.RoleBindingClientAdapter{Client: client.RbacV1(), NamespaceClient: client.CoreV1().Namespaces()}, existingRoleBindings},
				Confirm:     true,
			}
			report("rolebinding."+rbacv1.GroupName+"/"+binding.Name+" in "+namespace, func() error {
				return retry.OnError(retry.DefaultBackoff, isConflictOrServiceUnavailable, func() error {
					result, err := opts.Run(ctx)
					if err == nil {
						logBindingResult("rolebinding", namespace, binding.Name, result)
					}
					return err
				})
			})
		}
	}
	wg.Wait()
	return failed == nil, failed
}

// reconcileWorkers is how many bootstrap objects are reconciled at once.
const reconcileWorkers = 8

func logRoleResult(kind, namespace, name string, result *reconciliation.ReconcileClusterRoleResult) {
	switch {
	case result.Protected && result.Operation != reconciliation.ReconcileNone:
		klog.Warningf("skipped reconcile-protected %s.%s/%s%s with missing permissions: %v", kind, rbacv1.GroupName, name, in(namespace), result.MissingRules)
	case result.Operation == reconciliation.ReconcileUpdate:
		klog.V(2).Infof("updated %s.%s/%s%s with additional permissions: %v", kind, rbacv1.GroupName, name, in(namespace), result.MissingRules)
	case result.Operation == reconciliation.ReconcileCreate:
		klog.V(2).Infof("created %s.%s/%s%s", kind, rbacv1.GroupName, name, in(namespace))
	}
}

func logBindingResult(kind, namespace, name string, result *reconciliation.ReconcileClusterRoleBindingResult) {
	switch {
	case result.Protected && result.Operation != reconciliation.ReconcileNone:
		klog.Warningf("skipped reconcile-protected %s.%s/%s%s with missing subjects: %v", kind, rbacv1.GroupName, name, in(namespace), result.MissingSubjects)
	case result.Operation == reconciliation.ReconcileUpdate:
		klog.V(2).Infof("updated %s.%s/%s%s with additional subjects: %v", kind, rbacv1.GroupName, name, in(namespace), result.MissingSubjects)
	case result.Operation == reconciliation.ReconcileCreate:
		klog.V(2).Infof("created %s.%s/%s%s", kind, rbacv1.GroupName, name, in(namespace))
	case result.Operation == reconciliation.ReconcileRecreate:
		klog.V(2).Infof("recreated %s.%s/%s%s", kind, rbacv1.GroupName, name, in(namespace))
	}
}

func in(namespace string) string {
	if namespace == "" {
		return ""
	}
	return " in " + namespace
}

// primeAggregatedClusterRoles copies roles that became aggregated (admin, edit, view) to their
// new aggregated-to names, so that rules users added to the old roles are kept.
func primeAggregatedClusterRoles(ctx context.Context, clusterRolesToAggregate map[string]string, get func(context.Context, string) (*rbacv1.ClusterRole, error), clusterRoleClient rbacv1client.ClusterRolesGetter) error {
	for oldName, newName := range clusterRolesToAggregate {
		_, err := get(ctx, newName)
		if err == nil {
			continue
		}
		if !apierrors.IsNotFound(err) {
			return err
		}
		existingRole, err := get(ctx, oldName)
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return err
		}
		if existingRole.AggregationRule != nil {
			// Already aggregated: no custom rules to migrate.
			return nil
		}
		klog.V(1).Infof("migrating %v to %v", existingRole.Name, newName)
		existingRole.Name = newName
		existingRole.ResourceVersion = ""
		if _, err := clusterRoleClient.ClusterRoles().Create(ctx, existingRole, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
	}
	return nil
}

// primeSplitClusterRoleBindings creates split-off bindings (system:public-info-viewer from
// system:discovery) with the subjects, labels and annotations of the binding they came from.
func primeSplitClusterRoleBindings(ctx context.Context, clusterRoleBindingToSplit map[string]rbacv1.ClusterRoleBinding, get func(context.Context, string) (*rbacv1.ClusterRoleBinding, error), clusterRoleBindingClient rbacv1client.ClusterRoleBindingsGetter) error {
	for existingBindingName, clusterRoleBindingToCreate := range clusterRoleBindingToSplit {
		existingRoleBinding, err := get(ctx, existingBindingName)
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return err
		}
		_, err = get(ctx, clusterRoleBindingToCreate.Name)
		if err == nil {
			continue
		}
		if !apierrors.IsNotFound(err) {
			return err
		}
		klog.V(1).Infof("copying subjects, labels, and annotations from ClusterRoleBinding %q to template %q", existingBindingName, clusterRoleBindingToCreate.Name)
		newCRB := clusterRoleBindingToCreate.DeepCopy()
		newCRB.Subjects = existingRoleBinding.Subjects
		newCRB.Labels = existingRoleBinding.Labels
		newCRB.Annotations = existingRoleBinding.Annotations
		if _, err := clusterRoleBindingClient.ClusterRoleBindings().Create(ctx, newCRB, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
	}
	return nil
}
