package rbac

// The "rbac/bootstrap-roles" post-start hook. kube-apiserver (pkg/registry/rbac/rest) reconciles
// its bootstrap policy into storage at every start; so does the chain, with the same library
// (k8s.io/component-helpers/auth/rbac/reconciliation) and the policy as data
// (internal/rbac/bootstrappolicy): a missing object is created, one that lacks rules, subjects,
// labels or annotations of the policy gets them added, what users added stays, and an object
// annotated rbac.authorization.kubernetes.io/autoupdate=false is left alone.
//
// Two things differ, both for start-up time (the longest wait of a fresh start was this hook):
// each object's first Get is answered from one List per kind made before reconciling
// (listed.go), and the objects, which are independent, are reconciled a few at a time rather
// than one by one. On a fresh etcd that is about 150 creates, 8 at a time, and no Get.
// kube-apiserver also migrates stores older than aggregated roles (Kubernetes 1.9) and the
// system:public-info-viewer split (1.14); no chain ever stored those, so the chain does not.

import (
	"context"
	"fmt"
	"sync"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"
	"k8s.io/component-helpers/auth/rbac/reconciliation"
	"k8s.io/klog/v2"

	"github.com/apichain/apichain/internal/rbac/bootstrappolicy"
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
	policy, err := bootstrappolicy.Default()
	if err != nil {
		return fmt.Errorf("bootstrap policy: %w", err)
	}
	var lastErr error
	err = wait.PollUntilContextTimeout(hc, time.Second, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		lastErr = Reconcile(ctx, policy, client)
		return lastErr == nil, nil
	})
	switch {
	case err == nil:
		return nil
	case hc.Err() != nil:
		// The server is stopping: nothing failed (a failed hook would end the process).
		return nil
	default:
		return fmt.Errorf("unable to initialize roles: %v (last error: %v)", err, lastErr)
	}
}

// reconcileWorkers is how many bootstrap objects are reconciled at once.
const reconcileWorkers = 8

// Reconcile brings the stored RBAC objects up to p once. It tries every object, and returns
// the last error met (nil when all are done).
func Reconcile(ctx context.Context, p bootstrappolicy.Policy, client kubernetes.Interface) error {
	existing, err := list(ctx, client)
	if err != nil {
		return err
	}
	rbac, namespaces := client.RbacV1(), client.CoreV1().Namespaces()
	clusterRoles := listedRuleOwners{reconciliation.ClusterRoleModifier{Client: rbac.ClusterRoles()}, existing.clusterRoles}
	roles := listedRuleOwners{reconciliation.RoleModifier{Client: rbac, NamespaceClient: namespaces}, existing.roles}
	clusterRoleBindings := listedRoleBindings{reconciliation.ClusterRoleBindingClientAdapter{Client: rbac.ClusterRoleBindings()}, existing.clusterRoleBindings}
	roleBindings := listedRoleBindings{reconciliation.RoleBindingClientAdapter{Client: rbac, NamespaceClient: namespaces}, existing.roleBindings}

	var jobs []func() error
	for _, r := range p.ClusterRoles {
		jobs = append(jobs, reconcileRole(reconciliation.ClusterRoleRuleOwner{ClusterRole: r.DeepCopy()}, clusterRoles))
	}
	for _, b := range p.ClusterRoleBindings {
		jobs = append(jobs, reconcileBinding(reconciliation.ClusterRoleBindingAdapter{ClusterRoleBinding: b.DeepCopy()}, clusterRoleBindings))
	}
	for _, r := range p.Roles {
		jobs = append(jobs, reconcileRole(reconciliation.RoleRuleOwner{Role: r.DeepCopy()}, roles))
	}
	for _, b := range p.RoleBindings {
		jobs = append(jobs, reconcileBinding(reconciliation.RoleBindingAdapter{RoleBinding: b.DeepCopy()}, roleBindings))
	}

	var (
		mu     sync.Mutex
		failed error
		wg     sync.WaitGroup
		slots  = make(chan struct{}, reconcileWorkers)
	)
	for _, job := range jobs {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			// A conflict is someone else writing the same object (another instance starting):
			// read it again and retry.
			err := retry.OnError(retry.DefaultBackoff, func(err error) bool {
				return apierrors.IsConflict(err) || apierrors.IsServiceUnavailable(err)
			}, job)
			if err != nil {
				// Do not stop: create as much as possible, then retry.
				utilruntime.HandleError(err)
				mu.Lock()
				failed = err
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return failed
}

func reconcileRole(role reconciliation.RuleOwner, client reconciliation.RuleOwnerModifier) func() error {
	opts := reconciliation.ReconcileRoleOptions{Role: role, Client: client, Confirm: true}
	return func() error {
		result, err := opts.Run()
		if err != nil {
			return fmt.Errorf("unable to reconcile %s: %w", describe(role.GetObject()), err)
		}
		logResult(role.GetObject(), result.Operation, result.Protected, result.MissingRules)
		return nil
	}
}

func reconcileBinding(binding reconciliation.RoleBinding, client reconciliation.RoleBindingModifier) func() error {
	opts := reconciliation.ReconcileRoleBindingOptions{RoleBinding: binding, Client: client, Confirm: true}
	return func() error {
		result, err := opts.Run()
		if err != nil {
			return fmt.Errorf("unable to reconcile %s: %w", describe(binding.GetObject()), err)
		}
		logResult(binding.GetObject(), result.Operation, result.Protected, result.MissingSubjects)
		return nil
	}
}

// logResult logs what reconciling an object did, or would have done had it not been protected.
func logResult(obj any, op reconciliation.ReconcileOperation, protected bool, missing any) {
	switch {
	case op == reconciliation.ReconcileNone:
	case protected:
		klog.Warningf("skipped reconcile-protected %s, which lacks %v", describe(obj), missing)
	default:
		klog.V(2).Infof("%s %s: %v", op, describe(obj), missing)
	}
}

// describe names a policy object: clusterrole.rbac.authorization.k8s.io/admin, or
// role.rbac.authorization.k8s.io/x in kube-system.
func describe(obj any) string {
	switch o := obj.(type) {
	case *rbacv1.ClusterRole:
		return "clusterrole." + rbacv1.GroupName + "/" + o.Name
	case *rbacv1.ClusterRoleBinding:
		return "clusterrolebinding." + rbacv1.GroupName + "/" + o.Name
	case *rbacv1.Role:
		return "role." + rbacv1.GroupName + "/" + o.Name + " in " + o.Namespace
	case *rbacv1.RoleBinding:
		return "rolebinding." + rbacv1.GroupName + "/" + o.Name + " in " + o.Namespace
	}
	return fmt.Sprintf("%T", obj)
}
