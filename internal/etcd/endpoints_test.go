package etcd_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apichain/apichain/internal/etcd"
)

// TestEndpointsFiles: what a chain writes about its etcd reads back as written; the TLS file is
// there only while TLS files are named, and a broken one says which file is at fault.
func TestEndpointsFiles(t *testing.T) {
	dir := t.TempDir()
	if _, err := etcd.ReadEndpoints(dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("endpoints of a data dir without them: %v, want not found", err)
	}

	endpoints := []string{"https://10.0.0.1:2379", "https://10.0.0.2:2379"}
	if err := etcd.WriteEndpoints(dir, endpoints, etcd.TLSFiles{CAFile: "/pki/etcd-ca.crt"}); err != nil {
		t.Fatal(err)
	}
	if got, err := etcd.ReadEndpoints(dir); err != nil || !slices.Equal(got, endpoints) {
		t.Errorf("endpoints read back: %q, %v; want %q", got, err, endpoints)
	}
	tlsPath := filepath.Join(dir, etcd.TLSFile)
	if b, err := os.ReadFile(tlsPath); err != nil || !strings.Contains(string(b), `"cafile":"/pki/etcd-ca.crt"`) {
		t.Errorf("%s: %s, %v", etcd.TLSFile, b, err)
	}
	// The CA file named does not exist: reading the TLS configuration says so.
	if _, err := etcd.ReadClientTLS(dir); err == nil {
		t.Error("TLS configuration with a missing CA file: no error")
	}

	// The same data dir, now on the embedded member: no TLS, and no stale TLS file.
	if err := etcd.WriteEndpoints(dir, []string{"unix:///data/etcd/etcd.sock"}, etcd.TLSFiles{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(tlsPath); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s left behind: %v", etcd.TLSFile, err)
	}
	if cfg, err := etcd.ReadClientTLS(dir); cfg != nil || err != nil {
		t.Errorf("TLS configuration without TLS files: %v, %v; want none", cfg, err)
	}

	if err := os.WriteFile(tlsPath, []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := etcd.ReadClientTLS(dir); err == nil || !strings.Contains(err.Error(), etcd.TLSFile) {
		t.Errorf("a broken %s: %v, want an error naming it", etcd.TLSFile, err)
	}
}
