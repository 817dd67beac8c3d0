package main

import (
	"context"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// chromium finds the browser the page test drives: Debian's chromium (.ci/run installs it).
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "headless-shell"} {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	t.Skip("no chromium installed: the page is tested in a real browser (apt-get install chromium)")
	return ""
}

// testTracePage opens `chain trace --web`'s page in headless chromium, makes a request, and
// checks that the page shows it within a second of its being served, drawn across the lanes
// of the chain, and that clicking a hop shows its attributes.
func testTracePage(t *testing.T, c *traceChain) {
	browser := chromium(t)
	if _, err := c.client.CoreV1().ConfigMaps("trace-a").Create(context.Background(), configMap("page"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// The kubelets' Lease renewals and the controllers' requests are traced too, any moment: the
	// page follows this test's namespace only, so that the newest request is the one made here.
	f := follow(t, c.KubeconfigPath, "--web", "127.0.0.1:0", "--path", "/api/v1/namespaces/trace-a/")
	url := regexp.MustCompile(`the page is at (http://127\.0\.0\.1:\d+/)`).FindStringSubmatch(f.out.String())
	if url == nil {
		t.Fatalf("chain trace --web did not say where its page is:\n%s", f.out)
	}

	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(browser), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(t.TempDir()),
		// Wide enough that every lane of a hop's row is on screen, where a click lands.
		chromedp.WindowSize(1600, 1000))
	defer cancelAlloc()
	browserCtx, cancelBrowser := chromedp.NewContext(alloc)
	defer cancelBrowser()
	// The page is open and reads chain trace's stream: its status says it follows the chain.
	// (The browser lives as long as the context of its first action: no timeout on that one.)
	if err := chromedp.Do(browserCtx, chromedp.Navigate(url[1])); err != nil {
		t.Fatalf("opening the page: %v", err)
	}
	// Every wait below is on a condition; this bounds them all, should the page never get there.
	ctx, cancel := context.WithTimeout(browserCtx, 2*time.Minute)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`#status.ok`))); err != nil {
		t.Fatalf("the page does not say it follows the chain: %v\nchain trace said:\n%s", err, f.stderr)
	}

	// A request the page has not seen: its item appears, drawn by the page as it came.
	if _, err := c.client.CoreV1().ConfigMaps("trace-a").Get(context.Background(), "page", metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	served := time.Now()
	item := chromedp.CSS(`#request-list li[data-path="/api/v1/namespaces/trace-a/configmaps/page"][data-verb="get"]`)
	if err := chromedp.Do(ctx, chromedp.WaitVisible(item)); err != nil {
		t.Fatalf("waiting for the request on the page: %v", err)
	}
	shownAt, err := chromedp.Run(ctx, chromedp.AttributeValue(item, "data-shown-at"))
	if err != nil {
		t.Fatal(err)
	}
	ms, err := strconv.ParseInt(shownAt.Value, 10, 64)
	if err != nil {
		t.Fatalf("the request's item has no time it was shown (%q)", shownAt.Value)
	}
	// The page's clock and ours are the machine's: how soon the page drew it after the client
	// had its answer.
	if after := time.UnixMilli(ms).Sub(served); after > time.Second {
		t.Errorf("the page showed the request %v after it was served, want within a second", after)
	}

	// The page follows new requests: the new one is selected and drawn, a row a hop, each hop's
	// dot in the lane of the part of the chain that made it.
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`#detail tr.hop[data-name="core"]`))); err != nil {
		t.Fatalf("waiting for the request's hops: %v", err)
	}
	hops, err := chromedp.Run(ctx, chromedp.Evaluate[[]map[string]string](
		`[...document.querySelectorAll("#detail tr.hop")].map(r => ({name: r.dataset.name, lane: r.dataset.lane}))`))
	if err != nil {
		t.Fatalf("reading the drawn request: %v", err)
	}
	lanes := map[string]string{}
	var names []string
	for _, h := range hops {
		lanes[h["name"]] = h["lane"]
		names = append(names, h["name"])
	}
	for name, lane := range map[string]string{"aggregator": "aggregator", "core": "core", "Get": "core", "Get etcd3": "etcd"} {
		if lanes[name] != lane {
			t.Errorf("hop %q in lane %q, want %q; hops: %v", name, lanes[name], lane, hops)
		}
	}
	if i, j := slices.Index(names, "aggregator"), slices.Index(names, "core"); i < 0 || j < i {
		t.Errorf("hops in the order %v, want aggregator before core", names)
	}

	// Clicking a hop shows what the chain recorded of it. Clicking the request first holds it
	// (the page stops following new ones), as a user does before reading it.
	if err := chromedp.Do(ctx,
		chromedp.Click(item),
		chromedp.WaitVisible(chromedp.CSS(`#request-list li.selected[data-path="/api/v1/namespaces/trace-a/configmaps/page"]`)),
		chromedp.Click(chromedp.CSS(`#detail tr.hop[data-name="aggregator"] td.name`)),
		chromedp.WaitVisible(chromedp.CSS(`#attributes h3`)),
	); err != nil {
		t.Fatalf("clicking the aggregator's hop: %v", err)
	}
	attrs, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#attributes`)))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"aggregator", "apichain.handed_on_because", "apichain.answered_by", "core"} {
		if !strings.Contains(attrs, want) {
			t.Errorf("the aggregator hop's attributes say:\n%s\nwant %q", attrs, want)
		}
	}
	f.interrupt(t)
}
