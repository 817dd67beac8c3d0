package compare_test

import (
	"strings"
	"testing"

	"github.com/apichain/apichain/test/core/coretest"
)

// TestTablesHaveKubectlColumns checks the columns `kubectl get` shows for every Core resource
// (the full comparison with kube-apiserver is in servers/core/printers).
func TestTablesHaveKubectlColumns(t *testing.T) {
	for path, want := range map[string]string{
		"/api/v1/namespaces":                          "Name,Status,Age",
		"/api/v1/pods":                                "Name,Ready,Status,Restarts,Age,IP,Node,Nominated Node,Readiness Gates",
		"/api/v1/services":                            "Name,Type,Cluster-IP,External-IP,Port(s),Age,Selector",
		"/api/v1/configmaps":                          "Name,Data,Age",
		"/api/v1/secrets":                             "Name,Type,Data,Age",
		"/api/v1/serviceaccounts":                     "Name,Age",
		"/api/v1/nodes":                               "Name,Status,Roles,Age,Version,Internal-IP,External-IP,OS-Image,Kernel-Version,Container-Runtime",
		"/api/v1/endpoints":                           "Name,Endpoints,Age",
		"/api/v1/events":                              "Last Seen,Type,Reason,Object,Subobject,Source,Message,First Seen,Count,Name",
		"/apis/discovery.k8s.io/v1/endpointslices":    "Name,AddressType,Ports,Endpoints,Age",
		"/apis/coordination.k8s.io/v1/leases":         "Name,Holder,Age",
		"/apis/apiregistration.k8s.io/v1/apiservices": "Name,Service,Available,Age",
	} {
		if got := strings.Join(coretest.ColumnNames(coretest.Table(t, shared, path)), ","); got != want {
			t.Errorf("%s columns:\n got  %s\n want %s", path, got, want)
		}
	}
	// A row for the kubernetes service, as kube-apiserver prints it.
	table := coretest.Table(t, shared, "/api/v1/namespaces/default/services/kubernetes")
	if len(table.Rows) != 1 {
		t.Fatalf("rows: %d", len(table.Rows))
	}
	cells := table.Rows[0].Cells
	if cells[0] != "kubernetes" || cells[1] != "ClusterIP" || cells[2] != "10.0.0.1" || cells[3] != "<none>" || cells[4] != "443/TCP" {
		t.Errorf("kubernetes service row: %v", cells)
	}
}
