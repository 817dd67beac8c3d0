package etcd

import (
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"go.etcd.io/etcd/client/pkg/v3/transport"
)

// A running chain names, in its data dir, the etcd it uses (its embedded member's socket, or
// --etcd-servers), so that `chain etcdctl` and a second instance can find it.
const (
	// EndpointsFile holds the client URLs, one a line.
	EndpointsFile = "etcd-endpoints"
	// TLSFile holds the client TLS files of an external etcd (TLSFiles, as JSON); it is absent
	// when the etcd needs none.
	TLSFile = "etcd-tls.json"
)

// TLSFiles are the client TLS files of an external etcd: --etcd-cafile, --etcd-certfile and
// --etcd-keyfile.
type TLSFiles struct {
	CAFile   string `json:"cafile,omitempty"`
	CertFile string `json:"certfile,omitempty"`
	KeyFile  string `json:"keyfile,omitempty"`
}

// WriteEndpoints writes EndpointsFile, and TLSFile if files names any (else removes an old one).
func WriteEndpoints(dataDir string, endpoints []string, files TLSFiles) error {
	if err := os.WriteFile(filepath.Join(dataDir, EndpointsFile), []byte(strings.Join(endpoints, "\n")+"\n"), 0o600); err != nil {
		return err
	}
	path := filepath.Join(dataDir, TLSFile)
	if files == (TLSFiles{}) {
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return nil
	}
	b, err := json.Marshal(files)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o600)
}

// ReadEndpoints reads the client URLs WriteEndpoints wrote.
func ReadEndpoints(dataDir string) ([]string, error) {
	b, err := os.ReadFile(filepath.Join(dataDir, EndpointsFile))
	if err != nil {
		return nil, err
	}
	return strings.Fields(string(b)), nil
}

// ReadTLSFiles reads the TLS files WriteEndpoints named: none when the etcd needs no TLS.
func ReadTLSFiles(dataDir string) (TLSFiles, error) {
	b, err := os.ReadFile(filepath.Join(dataDir, TLSFile))
	if errors.Is(err, os.ErrNotExist) {
		return TLSFiles{}, nil
	}
	if err != nil {
		return TLSFiles{}, err
	}
	var files TLSFiles
	if err := json.Unmarshal(b, &files); err != nil {
		return TLSFiles{}, fmt.Errorf("%s: %w", TLSFile, err)
	}
	return files, nil
}

// ReadClientTLS reads the TLS files WriteEndpoints named into a client configuration: nil when
// the etcd needs no TLS.
func ReadClientTLS(dataDir string) (*tls.Config, error) {
	files, err := ReadTLSFiles(dataDir)
	if err != nil || files == (TLSFiles{}) {
		return nil, err
	}
	info := transport.TLSInfo{TrustedCAFile: files.CAFile, CertFile: files.CertFile, KeyFile: files.KeyFile}
	return info.ClientConfig()
}
