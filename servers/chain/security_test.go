package chain_test

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/apichain/apichain/internal/pki"
	"github.com/apichain/apichain/test/testchain"
)

// TestSecurityAnonymousGetsWhatKubeAPIServerGrants sends requests without credentials: like
// kube-apiserver, the chain authenticates them as system:anonymous, and its bootstrap policy
// grants that user only system:public-info-viewer (/healthz, /livez, /readyz, /version); even
// discovery (/api, /apis, system:discovery) is for authenticated users only.
func TestSecurityAnonymousGetsWhatKubeAPIServerGrants(t *testing.T) {
	anon := rest.AnonymousClientConfig(shared.Admin)
	for _, path := range []string{"/healthz", "/livez", "/readyz", "/version", "/readyz?verbose"} {
		if resp, body := testchain.Do(t, anon, http.MethodGet, path, nil, ""); resp.StatusCode != http.StatusOK {
			t.Errorf("anonymous GET %s: %d %s, want 200", path, resp.StatusCode, truncate(body))
		}
	}
	forbidden := []struct{ method, path, body, user string }{
		{"GET", "/api", "", `forbidden: User "system:anonymous" cannot get path "/api"`},
		{"GET", "/apis", "", `cannot get path "/apis"`},
		{"GET", "/api/v1", "", `cannot get path "/api/v1"`},
		{"GET", "/openapi/v2", "", `cannot get path "/openapi/v2"`},
		{"GET", "/metrics", "", `cannot get path "/metrics"`},
		{"GET", "/livez/ping", "", `cannot get path "/livez/ping"`}, // public-info-viewer names /livez, not what is under it
		{"GET", "/api/v1/namespaces/kube-system/secrets", "", `secrets is forbidden: User "system:anonymous" cannot list resource "secrets"`},
		{"GET", "/api/v1/nodes", "", `cannot list resource "nodes"`},
		{"POST", "/api/v1/namespaces/default/configmaps", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"anon"}}`, `cannot create resource "configmaps"`},
		{"GET", "/apis/apps/v1/deployments", "", `cannot list resource "deployments" in API group "apps"`},
		{"GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "", `cannot list resource "customresourcedefinitions"`},
		{"GET", "/apis/apiregistration.k8s.io/v1/apiservices", "", `cannot list resource "apiservices"`},
		{"POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", `{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}`, ""},
		{"GET", "/apis/nope.example.com/v1/things", "", `cannot list resource "things"`},
	}
	for _, tc := range forbidden {
		resp, body := testchain.Do(t, anon, tc.method, tc.path, []byte(tc.body), "application/json")
		if tc.path == "/apis/authentication.k8s.io/v1/selfsubjectreviews" {
			// kube-apiserver's system:basic-user binding is for system:authenticated: anonymous
			// may not ask who it is either.
			if resp.StatusCode != http.StatusForbidden {
				t.Errorf("anonymous SelfSubjectReview: %d %s, want 403", resp.StatusCode, truncate(body))
			}
			continue
		}
		var st metav1.Status
		if err := json.Unmarshal(body, &st); err != nil || resp.StatusCode != http.StatusForbidden || st.Reason != metav1.StatusReasonForbidden || !strings.Contains(st.Message, tc.user) {
			t.Errorf("anonymous %s %s: %d %s\nwant 403 saying %s", tc.method, tc.path, resp.StatusCode, truncate(body), tc.user)
		}
	}
}

// TestSecurityClientCertificates: only certificates of the chain's client CA authenticate, and
// only the front-proxy CA's front-proxy-client may say, in X-Remote-User, who else the caller is.
func TestSecurityClientCertificates(t *testing.T) {
	files := pki.FilesIn(filepath.Join(filepath.Dir(shared.KubeconfigPath), "pki"))
	forged := map[string]string{"X-Remote-User": "admin", "X-Remote-Group": "system:masters"}
	withCert := func(certPEM, keyPEM []byte) *rest.Config {
		cfg := rest.AnonymousClientConfig(shared.Admin)
		cfg.TLSClientConfig.CertData, cfg.TLSClientConfig.KeyData = certPEM, keyPEM
		return cfg
	}
	read := func(path string) []byte {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	// A front-proxy-client certificate signed by the client CA, and one of the front-proxy CA
	// with another name.
	proxyNameFromClientCA, proxyNameKey, err := pki.IssueClientCert(files, pki.FrontProxyClientName, nil)
	if err != nil {
		t.Fatal(err)
	}
	frontProxyCA := files
	frontProxyCA.ClientCACert, frontProxyCA.ClientCAKey = files.FrontProxyCACert, files.FrontProxyCAKey
	otherNameFromProxyCA, otherNameKey, err := pki.IssueClientCert(frontProxyCA, "not-the-proxy", nil)
	if err != nil {
		t.Fatal(err)
	}
	foreignCert, foreignKey := foreignAdminCert(t)

	for _, tc := range []struct {
		name    string
		cfg     *rest.Config
		headers map[string]string
		code    int
		// body must appear in the answer.
		body string
	}{
		{name: "an admin certificate of another CA", cfg: withCert(foreignCert, foreignKey), code: 401, body: `"reason":"Unauthorized"`},
		{name: "another CA's certificate with forged X-Remote-User", cfg: withCert(foreignCert, foreignKey), headers: forged, code: 401},
		{name: "a client-CA certificate named front-proxy-client, with X-Remote-User: only the x509 name counts",
			cfg: withCert(proxyNameFromClientCA, proxyNameKey), headers: forged, code: 403, body: `User \"front-proxy-client\" cannot list resource \"secrets\"`},
		{name: "a front-proxy CA certificate of another name, with X-Remote-User", cfg: withCert(otherNameFromProxyCA, otherNameKey), headers: forged, code: 401},
		{name: "a front-proxy CA certificate of another name, alone", cfg: withCert(otherNameFromProxyCA, otherNameKey), code: 401},
		{name: "the real front-proxy certificate without X-Remote-User", cfg: withCert(read(files.FrontProxyClientCert), read(files.FrontProxyClientKey)), code: 401},
		{name: "the real front-proxy certificate speaking for bob", cfg: withCert(read(files.FrontProxyClientCert), read(files.FrontProxyClientKey)),
			headers: map[string]string{"X-Remote-User": "bob"}, code: 403, body: `User \"bob\" cannot list resource \"secrets\"`},
		{name: "a bearer token nobody issued", cfg: rest.AnonymousClientConfig(shared.Admin), headers: map[string]string{"Authorization": "Bearer not-a-token"}, code: 401},
		{name: "a malformed service-account JWT", cfg: rest.AnonymousClientConfig(shared.Admin),
			headers: map[string]string{"Authorization": "Bearer eyJhbGciOiJub25lIn0.eyJpc3MiOiJodHRwczovL2t1YmVybmV0ZXMuZGVmYXVsdC5zdmMuY2x1c3Rlci5sb2NhbCJ9."}, code: 401},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := testchain.Request(t, tc.cfg, http.MethodGet, "/api/v1/namespaces/kube-system/secrets", nil, tc.headers)
			if resp.StatusCode != tc.code || !strings.Contains(string(body), tc.body) {
				t.Errorf("%d %s\nwant %d with %s", resp.StatusCode, truncate(body), tc.code, tc.body)
			}
		})
	}

	// A server that does not present the chain's serving CA is not trusted by the admin config
	// either way round: the chain's certificate does not verify against another CA.
	foreignCAPool := x509.NewCertPool()
	foreignCAPool.AppendCertsFromPEM(foreignCert)
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: foreignCAPool}}}
	if resp, err := client.Get(shared.URL + "/readyz"); err == nil {
		resp.Body.Close()
		t.Errorf("TLS to the chain verified against another CA")
	}
}

// TestSecurityDataDirModes: every private key in the data dir (the PKI's keys, the service
// account signing key, the kubeconfigs that embed a client key) is readable by its owner only,
// and so are the directories that hold them.
func TestSecurityDataDirModes(t *testing.T) {
	dir := filepath.Dir(shared.KubeconfigPath)
	checkDataDirModes(t, dir)
}

// checkDataDirModes walks dir: files holding a private key must be 0600, directories 0700.
func checkDataDirModes(t *testing.T, dir string) {
	t.Helper()
	keys := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if d.IsDir() {
			if info.Mode().Perm()&0o077 != 0 {
				t.Errorf("directory %s has mode %v: others may list it (want 0700)", rel, info.Mode().Perm())
			}
			return nil
		}
		if !info.Mode().IsRegular() {
			return nil
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		head, _ := io.ReadAll(io.LimitReader(f, 1<<20))
		f.Close()
		secret := strings.Contains(string(head), "PRIVATE KEY") || strings.Contains(string(head), "client-key-data") || strings.HasSuffix(path, ".key")
		if secret {
			keys++
			if info.Mode().Perm() != 0o600 {
				t.Errorf("%s holds a private key and has mode %v, want 0600", rel, info.Mode().Perm())
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// ca, apiserver, client-ca, admin, front-proxy-ca, front-proxy-client, sa + admin.kubeconfig.
	if keys < 8 {
		t.Errorf("found %d files with private keys in %s, expected at least 8", keys, dir)
	}
}
