package chaintest_test

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/apichain/apichain/chaintest"
)

// Start a control plane, use it with any client, stop it: envtest without binaries.
func Example() {
	env := &chaintest.Environment{CRDDirectoryPaths: []string{"testdata/crds"}}
	cfg, err := env.Start()
	if err != nil {
		panic(err)
	}
	defer env.Stop()

	cs := kubernetes.NewForConfigOrDie(cfg)
	ns, err := cs.CoreV1().Namespaces().Get(context.Background(), "default", metav1.GetOptions{})
	if err != nil {
		panic(err)
	}
	fmt.Println("namespace", ns.Name, ns.Status.Phase)
	fmt.Println("CRDs installed:", len(env.CRDs))
	// Output:
	// namespace default Active
	// CRDs installed: 1
}
