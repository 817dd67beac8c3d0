package chain

import (
	"context"
	"crypto/sha256"
	"encoding/base32"
	"os"
	"strings"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/apimachinery/pkg/util/wait"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/client-go/kubernetes"
	"k8s.io/component-helpers/apimachinery/lease"
	"k8s.io/utils/clock"

	"github.com/apichain/apichain/internal/apiserverleasegc"
)

// Every instance of the chain announces itself as kube-apiserver does: a Lease
// kube-system/apiserver-<hash>, labelled apiserver.kubernetes.io/identity=kube-apiserver and
// renewed every --identity-lease-renew-interval. A stopped instance deletes its lease; the lease of
// a crashed one expires and the others delete it. `kubectl get leases -n kube-system -l
// apiserver.kubernetes.io/identity` lists the instances that are alive.
// This follows kubernetes pkg/controlplane/apiserver/server.go (the APIServerIdentity part).

const (
	// identityLabel marks identity leases and says which component holds them.
	identityLabel = "apiserver.kubernetes.io/identity"
	kubeAPIServer = "kube-apiserver"
)

// instanceID is the instance's identity and the name of its lease: "apiserver-" and a hash of
// the host name and the data dir. Upstream hashes the host name alone (one kube-apiserver per
// host, k8s.io/apiserver pkg/server/config.go NewConfig); chain instances can share a host but
// never a data dir. The same data dir on the same host gives the same identity after a restart.
func instanceID(dataDir string) string {
	hostname, _ := os.Hostname()
	hash := sha256.Sum256([]byte(hostname + "\x00" + kubeAPIServer + "\x00" + dataDir))
	return "apiserver-" + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(hash[:16]))
}

// addIdentityLease registers the lease's renewal and the collection of expired leases, as
// kube-apiserver's post-start hooks start-kube-apiserver-identity-lease-controller and
// start-kube-apiserver-identity-lease-garbage-collector, and the step of the chain's
// pre-shutdown work (stopping) that deletes the lease on a graceful stop.
func addIdentityLease(s *genericapiserver.GenericAPIServer, o CompletedOptions, stopping *stopSteps) error {
	client, err := kubernetes.NewForConfig(s.LoopbackClientConfig)
	if err != nil {
		return err
	}
	id := s.APIServerID
	// The holder changes with every start, the lease name does not.
	holder := id + "_" + string(uuid.NewUUID())
	controller := lease.NewController(clock.RealClock{}, client, holder,
		int32(o.IdentityLeaseDuration.Seconds()), nil, o.IdentityLeaseRenewInterval,
		id, metav1.NamespaceSystem, labelIdentity)
	if err := s.AddPostStartHook("start-chain-identity-lease-controller", func(hc genericapiserver.PostStartHookContext) error {
		// The lease lives in kube-system, which Core's start-core-system-namespaces hook creates
		// meanwhile: started before, the controller would log an error and retry.
		err := wait.PollUntilContextCancel(hc, 20*time.Millisecond, true, func(ctx context.Context) (bool, error) {
			_, err := client.CoreV1().Namespaces().Get(ctx, metav1.NamespaceSystem, metav1.GetOptions{})
			return err == nil, nil
		})
		if err != nil {
			return nil // stopping before it was ever needed
		}
		return controller.Start(hc.Done())
	}); err != nil {
		return err
	}
	// Stop ends the renewals and deletes the lease, while the chain still serves that DELETE.
	stopping.add("identity-lease", func() error {
		controller.Stop()
		return nil
	})
	// Upstream checks every hour for leases of an hour; the check period here follows the
	// duration, so that short leases (in tests) are collected as promptly.
	return s.AddPostStartHook("start-chain-identity-lease-garbage-collector", func(hc genericapiserver.PostStartHookContext) error {
		go apiserverleasegc.New(client, o.IdentityLeaseDuration, metav1.NamespaceSystem, identityLabel+"="+kubeAPIServer).Run(hc)
		return nil
	})
}

// labelIdentity labels the lease as upstream's labelAPIServerHeartbeatFunc does.
func labelIdentity(l *coordinationv1.Lease) error {
	if l.Labels == nil {
		l.Labels = map[string]string{}
	}
	l.Labels[identityLabel] = kubeAPIServer
	hostname, err := os.Hostname()
	if err != nil {
		return err
	}
	// Which host the instance runs on, at a glance.
	l.Labels[corev1.LabelHostname] = hostname
	return nil
}
