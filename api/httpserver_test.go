package api

import (
	"bufio"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// Every listener is served by HardenedServer: oversized headers are
// refused, a client that trickles its headers is cut off.
func TestHardenedServer(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	ts := httptest.NewUnstartedServer(h)
	ts.Config = HardenedServer(h, Timeouts{ReadHeader: 200 * time.Millisecond, Read: time.Second, Write: time.Second, Idle: time.Second}, nil)
	ts.Start()
	defer ts.Close()

	req, _ := http.NewRequest(http.MethodGet, ts.URL, nil)
	req.Header.Set("X-Small", strings.Repeat("a", 1<<10))
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusNoContent {
		t.Fatalf("ordinary request: %v %v", resp, err)
	}
	resp.Body.Close()

	req.Header.Set("X-Huge", strings.Repeat("a", 100<<10))
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Fatalf("100 KiB of headers: %d, want 431", resp.StatusCode)
	}

	conn, err := net.Dial("tcp", ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte("GET / HTTP/1.1\r\nHost: x\r\n")); err != nil { // headers never finished
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	start := time.Now()
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err == nil && !strings.Contains(line, "408") {
		t.Fatalf("slow headers answered %q", line)
	}
	if waited := time.Since(start); waited > 3*time.Second {
		t.Fatalf("slow headers kept the connection %s", waited)
	}
}
