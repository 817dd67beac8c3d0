package scheduling

import (
	"context"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	genericapiserver "k8s.io/apiserver/pkg/server"
	schedulingclient "k8s.io/client-go/kubernetes/typed/scheduling/v1"
	"k8s.io/klog/v2"

	validation "github.com/apichain/apichain/servers/core/validation/scheduling"
)

// PostStartHookName is kube-apiserver's name for the hook that creates the system priority
// classes.
const PostStartHookName = "scheduling/bootstrap-system-priority-classes"

// BootstrapSystemPriorityClasses creates system-node-critical and system-cluster-critical, as
// kubernetes pkg/registry/scheduling/rest/storage_scheduling.go AddSystemPriorityClasses does:
// /readyz reports the hook until both exist.
func BootstrapSystemPriorityClasses(hc genericapiserver.PostStartHookContext) error {
	client, err := schedulingclient.NewForConfig(hc.LoopbackClientConfig)
	if err != nil {
		return err
	}
	err = wait.PollUntilContextCancel(hc, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		for _, pc := range validation.SystemClasses() {
			_, err := client.PriorityClasses().Get(ctx, pc.Name, metav1.GetOptions{})
			if err == nil {
				continue
			}
			if !apierrors.IsNotFound(err) {
				klog.V(2).InfoS("Unable to get PriorityClass; retrying", "name", pc.Name, "err", err)
				return false, nil
			}
			if _, err := client.PriorityClasses().Create(ctx, pc, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
				klog.V(2).InfoS("Unable to create PriorityClass; retrying", "name", pc.Name, "err", err)
				return false, nil
			}
			klog.V(2).InfoS("Created PriorityClass", "name", pc.Name, "value", pc.Value)
		}
		return true, nil
	})
	if hc.Err() != nil {
		return nil // the server stopped first
	}
	return err
}
