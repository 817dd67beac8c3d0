package flowcontrol_test

import (
	"context"
	"testing"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/endpoints/request"
	utilflowcontrol "k8s.io/apiserver/pkg/util/flowcontrol"
	fcrequest "k8s.io/apiserver/pkg/util/flowcontrol/request"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"

	"github.com/apichain/apichain/test/testchain"
)

// TestAggregatedServersConfigController: an aggregated API server built on k8s.io/apiserver
// runs the same APF configuration controller as the head, reading FlowSchemas and
// PriorityLevelConfigurations from the chain as its ServiceAccount. Nothing in kube-apiserver's
// bootstrap policy lets a ServiceAccount read them (only cluster-admin and the controllers'
// wildcard roles do); whoever deploys such a server grants it, as kubernetes' own aggregator
// e2e test does for sample-apiserver: get, list and watch on both. With that grant the
// controller's informers sync (the server's /readyz waits on them) and it classifies requests
// by the chain's configuration.
func TestAggregatedServersConfigController(t *testing.T) {
	ctx := context.Background()
	cs, _ := testchain.Clients(t, shared)
	ns := testchain.Namespace(t, shared)
	saCfg := token(t, ns, "sample-apiserver")
	sa, err := kubernetes.NewForConfig(saCfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sa.FlowcontrolV1().FlowSchemas().List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Fatalf("a ServiceAccount lists FlowSchemas without a grant: %v, want Forbidden, as kube-apiserver's bootstrap policy", err)
	}

	// The grant kubernetes' aggregator e2e test gives sample-apiserver.
	grant(t, cs, "apf-test-aggregated-reader", rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: "sample-apiserver"},
		rbacv1.PolicyRule{Verbs: []string{"get", "list", "watch"}, APIGroups: []string{""}, Resources: []string{"namespaces"}},
		rbacv1.PolicyRule{Verbs: []string{"get", "list", "watch"}, APIGroups: []string{"admissionregistration.k8s.io"}, Resources: []string{"*"}},
		rbacv1.PolicyRule{Verbs: []string{"get", "list", "watch"}, APIGroups: []string{flowcontrolv1.GroupName}, Resources: []string{"prioritylevelconfigurations", "flowschemas"}})

	// The controller as k8s.io/apiserver's RecommendedOptions makes it (its default limit, 600).
	factory := informers.NewSharedInformerFactory(sa, 0)
	controller := utilflowcontrol.New(factory, sa.FlowcontrolV1(), 600)
	fss := factory.Flowcontrol().V1().FlowSchemas().Informer()
	pls := factory.Flowcontrol().V1().PriorityLevelConfigurations().Informer()
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop) })
	factory.Start(stop)
	go func() { _ = controller.Run(stop) }()
	testchain.WaitFor(t, func() bool { return fss.HasSynced() && pls.HasSynced() })

	// A ServiceAccount's request, as the server would see it: classified by the chain's
	// configuration once the controller has read it.
	digest := utilflowcontrol.RequestDigest{
		RequestInfo: &request.RequestInfo{IsResourceRequest: true, Verb: "list", APIVersion: "v1", Resource: "pods", Namespace: ns,
			Path: "/api/v1/namespaces/" + ns + "/pods"},
		User: &user.DefaultInfo{Name: "system:serviceaccount:" + ns + ":robot",
			Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + ns, user.AllAuthenticated}},
	}
	var schema, level string
	testchain.WaitFor(t, func() bool {
		controller.Handle(ctx, digest,
			func(fs *flowcontrolv1.FlowSchema, pl *flowcontrolv1.PriorityLevelConfiguration, _ string) {
				schema, level = fs.Name, pl.Name
			},
			func() fcrequest.WorkEstimate { return fcrequest.WorkEstimate{InitialSeats: 1} },
			func(bool) {}, func() {})
		return schema == "service-accounts"
	})
	if level != "workload-low" {
		t.Errorf("the aggregated server's controller puts a ServiceAccount's list in %s/%s, want service-accounts/workload-low", schema, level)
	}
}
