package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/apichain/apichain/test/anchor"
)

// TestSecurityNoSecretsInLogs runs the real binary logging at -v=8 (request URLs, headers
// at the level kube-apiserver logs them), creates a Secret holding a unique marker, reads it
// back, and authenticates with a static bearer token that is another marker; neither marker
// (nor its base64 form) may appear in anything the chain wrote, on stdout or stderr.
func TestSecurityNoSecretsInLogs(t *testing.T) {
	marker := func(prefix string) string {
		b := make([]byte, 12)
		if _, err := rand.Read(b); err != nil {
			t.Fatal(err)
		}
		return prefix + hex.EncodeToString(b)
	}
	secretValue, token := marker("secret-marker-"), marker("token-marker-")
	dir := t.TempDir()
	tokenFile := filepath.Join(t.TempDir(), "tokens.csv")
	if err := os.WriteFile(tokenFile, []byte(token+`,tokenuser,uid-1,"system:masters"`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	var logs anchor.LockedBuffer
	cmd := exec.Command(build(t), "--data-dir", dir, "--secure-port", "0", "--unsafe-no-fsync", "--metrics=off",
		"--token-auth-file", tokenFile, "-v=8")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _, _ = cmd.Process.Wait() })
	ready := make(chan struct{})
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			logs.Write([]byte(sc.Text() + "\n"))
			if strings.HasPrefix(sc.Text(), "export KUBECONFIG=") {
				close(ready)
			}
		}
	}()
	select {
	case <-ready:
	case <-copied:
		t.Fatalf("the chain exited before it was ready:\n%s", tail(logs.String()))
	case <-time.After(2 * time.Minute):
		t.Fatalf("not ready within 2 minutes:\n%s", tail(logs.String()))
	}

	cfg, err := clientcmd.BuildConfigFromFlags("", filepath.Join(dir, "admin.kubeconfig"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cs := kubernetes.NewForConfigOrDie(cfg)
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "marked"}, StringData: map[string]string{"password": secretValue}}
	if _, err := cs.CoreV1().Secrets("default").Create(ctx, secret, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// A failed update logs its error: the object it carries must not be in it.
	secret.ResourceVersion = "1"
	_, _ = cs.CoreV1().Secrets("default").Update(ctx, secret, metav1.UpdateOptions{})
	tokenCfg := rest.AnonymousClientConfig(cfg)
	tokenCfg.BearerToken = token
	got, err := kubernetes.NewForConfigOrDie(tokenCfg).CoreV1().Secrets("default").Get(ctx, "marked", metav1.GetOptions{})
	if err != nil || string(got.Data["password"]) != secretValue {
		t.Fatalf("reading the secret with the static token: %v", err)
	}
	// A wrong token is logged as a failure: not the token itself.
	badCfg := rest.AnonymousClientConfig(cfg)
	badCfg.BearerToken = token + "-wrong"
	_, _ = kubernetes.NewForConfigOrDie(badCfg).CoreV1().Secrets("default").Get(ctx, "marked", metav1.GetOptions{})

	// Stop the chain so that everything it would log is written.
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("the chain did not stop within a minute")
	}
	<-copied
	out := logs.String()
	if !strings.Contains(out, "GET") || len(out) < 10000 {
		t.Fatalf("the logs do not look like -v=8 logs (%d bytes):\n%s", len(out), tail(out))
	}
	for name, s := range map[string]string{
		"the secret's value": secretValue, "its base64": base64.StdEncoding.EncodeToString([]byte(secretValue)),
		"the bearer token": token, "the token's prefix": token[:len("token-marker-")+8],
	} {
		if i := strings.Index(out, s); i >= 0 {
			t.Errorf("%s appears in the logs:\n…%s…", name, out[max(0, i-300):min(len(out), i+100)])
		}
	}
	t.Logf("%d bytes of logs at -v=8, no marker in them", len(out))
}

func tail(s string) string {
	if len(s) > 3000 {
		return s[len(s)-3000:]
	}
	return s
}
