package chain

import (
	"context"
	"fmt"
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/apichain/apichain/controllers"
	corereg "github.com/apichain/apichain/servers/core/registry/core"
)

// componentProbes answer for the scheduler and the controller-manager in Core's
// componentstatuses. kube-apiserver probes their /healthz on 127.0.0.1; the chain runs them
// itself, as controllers (controllers/), so the truth is here: healthy when this instance runs
// them, that is when --controllers enables them, the post-start hook that starts them has
// finished, and (with --leader-elect) this instance holds the controllers' Lease. They ask
// through loopback, the configuration of the instance's client of itself.
func componentProbes(o CompletedOptions, loopback *rest.Config, identity string) map[string]corereg.Probe {
	var managed []string
	for _, name := range controllers.Names() {
		if name != controllers.Scheduler && name != controllers.SimulatedKubelet {
			managed = append(managed, name)
		}
	}
	client, err := kubernetes.NewForConfig(loopback)
	running := func(names []string, disabled string) corereg.Probe {
		return func(ctx context.Context) corereg.Health {
			if !slices.ContainsFunc(names, o.ControllerEnabled) {
				return corereg.Health{Message: disabled}
			}
			if err != nil {
				return corereg.Health{Message: fmt.Sprintf("cannot ask this instance: %v", err)}
			}
			return controllersRunning(ctx, o, client, identity)
		}
	}
	return map[string]corereg.Probe{
		"scheduler":          running([]string{controllers.Scheduler}, "not running: --controllers does not enable the scheduler"),
		"controller-manager": running(managed, "not running: --controllers enables none of the controller-manager's controllers"),
	}
}

// controllersRunning: this instance has started its controllers and still leads.
func controllersRunning(ctx context.Context, o CompletedOptions, client kubernetes.Interface, identity string) corereg.Health {
	const hook = "start-chain-controllers"
	body, err := client.CoreV1().RESTClient().Get().AbsPath("/readyz/poststarthook/" + hook).DoRaw(ctx)
	if err != nil || string(body) != "ok" {
		return corereg.Health{Message: fmt.Sprintf("not started yet: the post-start hook %s has not finished", hook)}
	}
	election := o.LeaderElection
	if !election.LeaderElect {
		return corereg.Health{Healthy: true, Message: "ok"}
	}
	lease, err := client.CoordinationV1().Leases(election.ResourceNamespace).Get(ctx, election.ResourceName, metav1.GetOptions{})
	where := election.ResourceNamespace + "/" + election.ResourceName
	switch {
	case err != nil:
		return corereg.Health{Message: fmt.Sprintf("cannot tell who leads: reading the Lease %s: %v", where, err)}
	case lease.Spec.HolderIdentity == nil || *lease.Spec.HolderIdentity != identity:
		holder := "nobody"
		if lease.Spec.HolderIdentity != nil && *lease.Spec.HolderIdentity != "" {
			holder = *lease.Spec.HolderIdentity
		}
		return corereg.Health{Message: fmt.Sprintf("not the leader: %s holds the Lease %s, this instance is %s", holder, where, identity)}
	case lease.Spec.RenewTime == nil || lease.Spec.LeaseDurationSeconds == nil ||
		time.Since(lease.Spec.RenewTime.Time) > time.Duration(*lease.Spec.LeaseDurationSeconds)*time.Second:
		return corereg.Health{Message: fmt.Sprintf("the leader's Lease %s has expired", where)}
	}
	return corereg.Health{Healthy: true, Message: "ok"}
}
