package coretest

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	aggregatorclient "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset"

	"github.com/apichain/apichain/servers/chain"
	"github.com/apichain/apichain/test/testchain"
)

// Table GETs path from c as a Table, as kubectl get does.
func Table(t testing.TB, c *chain.Chain, path string) *metav1.Table {
	t.Helper()
	resp, body := testchain.Request(t, c.Admin, http.MethodGet, path, nil, map[string]string{"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"})
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s as Table: %d %s", path, resp.StatusCode, body)
	}
	var table metav1.Table
	if err := json.Unmarshal(body, &table); err != nil || table.Kind != "Table" {
		t.Fatalf("not a Table: %v %s", err, body)
	}
	return &table
}

// ColumnNames are the names of table's columns, in order.
func ColumnNames(table *metav1.Table) []string {
	var names []string
	for _, c := range table.ColumnDefinitions {
		names = append(names, c.Name)
	}
	return names
}

// Available says whether APIService s has the condition Available=True.
func Available(s *apiregistrationv1.APIService) bool {
	for _, c := range s.Status.Conditions {
		if c.Type == apiregistrationv1.Available {
			return c.Status == apiregistrationv1.ConditionTrue
		}
	}
	return false
}

// WaitAPIServiceAvailable waits until the APIService name exists on c and is Available.
func WaitAPIServiceAvailable(t testing.TB, c *chain.Chain, name string) {
	t.Helper()
	ac := aggregatorclient.NewForConfigOrDie(c.Admin)
	err := wait.PollUntilContextTimeout(context.Background(), 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		s, err := ac.ApiregistrationV1().APIServices().Get(ctx, name, metav1.GetOptions{})
		return err == nil && Available(s), nil
	})
	if err != nil {
		t.Fatalf("APIService %s not available: %v", name, err)
	}
}

// Warnings collects the warnings of the responses to one client: set it as the client's
// rest.Config WarningHandler.
type Warnings struct{ Got []string }

// HandleWarningHeader is rest.WarningHandler's.
func (w *Warnings) HandleWarningHeader(_ int, _ string, text string) { w.Got = append(w.Got, text) }
