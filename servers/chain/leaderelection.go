package chain

import (
	"context"
	"fmt"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	componentbaseconfig "k8s.io/component-base/config"
	"k8s.io/klog/v2"
)

// electLeader runs start while this instance holds the controller manager's Lease
// (--leader-elect-resource-namespace/--leader-elect-resource-name), so that of several instances
// sharing one etcd only one runs the namespace, garbage-collector, deployment... controllers.
// It follows kube-controller-manager's leaderElectAndRun (cmd/kube-controller-manager/app/
// controllermanager.go) with one difference: kube-controller-manager exits when it loses the
// lease, while a chain instance also serves the API, so here losing the lease cancels the
// controllers' context and the instance campaigns again.
//
// It returns once the election has an outcome: this instance leads (and start has returned), or
// another instance holds the lease. That keeps /readyz (which waits for post-start hooks)
// meaningful: a ready leader has started its controllers, and a follower is ready at once.
//
// stopped is closed once ctx is done and the elector has let the lease go.
func electLeader(ctx context.Context, client kubernetes.Interface, cfg componentbaseconfig.LeaderElectionConfiguration, identity string, start func(context.Context) error, stopped chan<- struct{}) error {
	decided := make(chan struct{})
	var once sync.Once
	decide := func() { once.Do(func() { close(decided) }) }
	startErr := make(chan error, 1)

	newElector := func() (*leaderelection.LeaderElector, error) {
		return leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
			Lock: &resourcelock.LeaseLock{
				LeaseMeta: metav1.ObjectMeta{Namespace: cfg.ResourceNamespace, Name: cfg.ResourceName},
				Client:    client.CoordinationV1(),
				// The instance's identity (apiserver-<hash>) is stable across restarts: a chain
				// restarted after a crash finds itself the holder and leads again at once,
				// instead of waiting for its own old lease to expire.
				LockConfig: resourcelock.ResourceLockConfig{Identity: identity},
			},
			LeaseDuration: cfg.LeaseDuration.Duration,
			RenewDeadline: cfg.RenewDeadline.Duration,
			RetryPeriod:   cfg.RetryPeriod.Duration,
			// A graceful stop hands the lease over at once.
			ReleaseOnCancel: true,
			Name:            cfg.ResourceName,
			Callbacks: leaderelection.LeaderCallbacks{
				OnStartedLeading: func(ctx context.Context) {
					klog.InfoS("Leading: starting the controllers", "lease", klog.KRef(cfg.ResourceNamespace, cfg.ResourceName), "identity", identity)
					if err := start(ctx); err != nil {
						select {
						case startErr <- err:
						default:
						}
						klog.ErrorS(err, "Starting the controllers failed")
					}
					decide()
				},
				OnStoppedLeading: func() {
					klog.InfoS("Not leading (any more): the controllers are stopped", "identity", identity)
				},
				OnNewLeader: func(leader string) {
					if leader != identity {
						klog.InfoS("Another instance leads the controllers", "leader", leader)
						decide()
					}
				},
			},
		})
	}
	// Validate the configuration now, where a mistake can fail the start.
	if _, err := newElector(); err != nil {
		return fmt.Errorf("leader election: %w", err)
	}
	// The lease lives in a namespace another post-start hook creates (kube-system): a first try
	// before it exists fails, and the elector would retry only after RetryPeriod (2 s).
	if err := wait.PollUntilContextCancel(ctx, 20*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		_, err := client.CoreV1().Namespaces().Get(ctx, cfg.ResourceNamespace, metav1.GetOptions{})
		return err == nil, nil
	}); err != nil {
		close(stopped)
		return nil // stopping
	}
	go func() {
		defer close(stopped)
		for ctx.Err() == nil {
			// A new elector per term: Run returns when the lease is lost.
			le, err := newElector()
			if err != nil {
				klog.ErrorS(err, "Leader election")
				return
			}
			le.Run(ctx)
		}
	}()
	select {
	case <-decided:
		select {
		case err := <-startErr:
			return err
		default:
			return nil
		}
	case err := <-startErr:
		return err
	case <-ctx.Done():
		return nil
	}
}
