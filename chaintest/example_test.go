package chaintest_test

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
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

// A suite shares one Environment: started once, Reset between tests, stopped at the end. In a
// real suite, TestMain starts it and each test (or a t.Cleanup) calls Reset.
func ExampleEnvironment_Reset() {
	env := &chaintest.Environment{}
	cfg, err := env.Start()
	if err != nil {
		panic(err)
	}
	defer env.Stop()
	cs := kubernetes.NewForConfigOrDie(cfg)
	ctx := context.Background()

	for _, test := range []string{"first", "second"} {
		// Each test may use the same names: what the one before made is gone.
		_, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "app"}}, metav1.CreateOptions{})
		fmt.Println(test, "test creates namespace app:", err)
		if err := env.Reset(); err != nil {
			panic(err)
		}
	}
	_, err = cs.CoreV1().Namespaces().Get(ctx, "app", metav1.GetOptions{})
	fmt.Println("after Reset:", err)
	// Output:
	// first test creates namespace app: <nil>
	// second test creates namespace app: <nil>
	// after Reset: namespaces "app" not found
}
